"""The noise shares of a round: every client's for the wrap, the fewest survivors' for epsilon."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from itsa.exceptions import InvalidOption
from itsa.privacy import noise_shares, survivors_under


@given(st.integers(1, 10**6), st.fractions(min_value=0, max_value=Fraction(99, 100)))
def test_the_wrap_counts_every_client_and_privacy_the_fewest_survivors(clients, dropout):
    shares = noise_shares(clients, dropout)
    assert shares.wrap == clients and shares.privacy == survivors_under(clients, dropout)
    assert 1 <= shares.privacy <= shares.wrap and shares.privacy >= clients - dropout * clients


def test_central_noise_is_one_draw_and_a_whole_dropout_is_refused():
    assert (noise_shares(1000, "1/10", distributed=False).wrap, noise_shares(1000, 0, distributed=False).privacy) == (1, 1)
    assert noise_shares(1000, "1/10").privacy == 900
    with pytest.raises(InvalidOption, match=r"dropout: must lie in \[0, 1\)"):
        noise_shares(1000, 1)
