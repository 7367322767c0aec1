"""Exact samplers at production speed, keyed by a counter-based ChaCha20 stream.

    sample(law, parameter, count, seed, *, workers=1, time_limit=None) -> SampleRun     # timed, for the CLI
    discrete_gaussian(sigma_squared, count, seed, *, start=0, workers=1) -> int64 array   # N_Z(0, sigma^2), exactly
    fair_coins(coins, count, seed, *, start=0, workers=1) -> int64 array            # Bin(N, 1/2) heads, exactly
    skellam(variance, count, seed, *, start=0, workers=1) -> int64 array            # Poisson(V/2) - Poisson(V/2)
    poisson(mean, count, seed, *, start=0, workers=1) -> int64 array                # Poisson(lambda), exactly
    stream_key(seed) -> bytes; BlockStream(key, tag, block).words(n)                      # the stream
    npy_draws(file, count) -> the int64 .npy of count draws in an open file, mapped         # out= of any sampler
    exp_neg, bracket, LazyUniform                                                         # the exact decisions

Every accept/reject or inversion decision compares random whole numbers
with integer bounds proven to enclose the threshold; the rare words inside
a bracket are decided in exact ball arithmetic with more random bits. The
samplers are not constant-time.

Examples
--------
>>> from itsa.privacy.samplers import discrete_gaussian
>>> discrete_gaussian(1000**2, 3, seed=1).dtype.name
'int64'
"""

from itsa.privacy.samplers._coins import MAX_COINS, CoinsLaw, fair_coins
from itsa.privacy.samplers._dgauss import (
    MAX_DRAWS,
    MAX_SIGMA_SQUARED,
    MIN_SIGMA_SQUARED,
    DiscreteGaussianLaw,
    discrete_gaussian,
)
from itsa.privacy.samplers._exact import LazyUniform, bracket, exp_neg
from itsa.privacy.samplers._poisson import MAX_MEAN, MIN_MEAN, PoissonLaw, SkellamLaw, poisson, skellam
from itsa.privacy.samplers._run import Law, SampleRun, law_of, sample
from itsa.privacy.samplers._stream import BLOCK, BlockStream, npy_draws, seed_text, stream_key

__all__ = ["sample", "Law", "SampleRun", "law_of", "discrete_gaussian", "fair_coins", "CoinsLaw", "MAX_COINS", "DiscreteGaussianLaw", "MAX_DRAWS", "MAX_SIGMA_SQUARED", "MIN_SIGMA_SQUARED",
           "skellam", "poisson", "SkellamLaw", "PoissonLaw", "MAX_MEAN", "MIN_MEAN",
           "BLOCK", "BlockStream", "npy_draws", "seed_text", "stream_key", "LazyUniform", "bracket", "exp_neg"]
