"""What the paper proves and itsa corrects: analysis and regimes, the Theorem-2 LP, the corrected chain bound, published optima."""
