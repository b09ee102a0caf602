"""Independent PyTorch reference of iTransformer (Liu et al., ICLR 2024) as TSLib has it.

Written from the paper and TSLib's models/iTransformer.py + layers/Embed.py
(DataEmbedding_inverted), eval mode: the variables are the tokens. Each variable's whole
input window (after the non-stationary normalisation: mean and biased std over time, +1e-5
inside the root) is embedded by one Linear seq_len -> d_model; each calendar feature's
window (TSLib's x_mark, not normalised) is embedded by the same Linear as an extra token;
a post-norm encoder attends across the tokens; a final LayerNorm; the projection
Linear d_model -> pred_len; the first N tokens are kept and de-normalised.

Module names give TSLib's state_dict keys: enc_embedding.value_embedding.*,
encoder.attn_layers.<i>.*, encoder.norm.*, projection.*. The encoder blocks are the ones
the PatchTST reference defines (the same TSLib classes).
"""

import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patchtst_reference as ref  # noqa: E402


class DataEmbeddingInverted(nn.Module):
    def __init__(self, seq_len, d_model, dropout=0.0):
        super().__init__()
        self.value_embedding = nn.Linear(seq_len, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, x_mark):
        """x [B,T,N], x_mark [B,T,C] or None -> tokens [B, N(+C), d_model]."""
        x = x.permute(0, 2, 1)
        if x_mark is not None:
            x = torch.cat([x, x_mark.permute(0, 2, 1)], 1)
        return self.dropout(self.value_embedding(x))


class ITransformer(nn.Module):
    """x [B,T,N] (+ x_mark [B,T,C]) -> [B,F,N]. `config` uses TSLib argument names."""

    def __init__(self, config):
        super().__init__()
        c = dict(config)
        self.config = c
        dropout = c.get("dropout", 0.0)
        self.pred_len = c["pred_len"]
        self.enc_embedding = DataEmbeddingInverted(c["seq_len"], c["d_model"], dropout)
        self.encoder = ref.build_encoder(dict(c, norm="layer"), dropout)
        self.projection = nn.Linear(c["d_model"], c["pred_len"])

    def forecast_with_details(self, x, x_mark=None):
        """-> (forecast [B,F,N], attns list of [B,H,N',N'], encoder output [B,N',D])."""
        means = x.mean(1, keepdim=True)
        x = x - means
        stdev = torch.sqrt(torch.var(x, dim=1, keepdim=True, unbiased=False) + 1e-5)
        x = x / stdev
        N = x.shape[2]
        enc_out, attns = self.encoder(self.enc_embedding(x, x_mark))
        y = self.projection(enc_out).permute(0, 2, 1)[:, :, :N]
        y = y * stdev[:, 0, :].unsqueeze(1) + means[:, 0, :].unsqueeze(1)
        return y, attns, enc_out

    def forward(self, x, x_mark=None):
        return self.forecast_with_details(x, x_mark)[0]


def spec_keys(e_layers):
    keys = ["enc_embedding.value_embedding.weight", "enc_embedding.value_embedding.bias"]
    for i in range(e_layers):
        p = "encoder.attn_layers.%d." % i
        for proj in ("query", "key", "value", "out"):
            keys += [p + "attention.%s_projection.weight" % proj, p + "attention.%s_projection.bias" % proj]
        keys += [p + "conv1.weight", p + "conv1.bias", p + "conv2.weight", p + "conv2.bias",
                 p + "norm1.weight", p + "norm1.bias", p + "norm2.weight", p + "norm2.bias"]
    return keys + ["encoder.norm.weight", "encoder.norm.bias", "projection.weight", "projection.bias"]


def _self_check():
    torch.manual_seed(0)
    cfg = dict(seq_len=96, pred_len=24, enc_in=7, d_model=16, n_heads=4, e_layers=2, d_ff=32,
               activation="gelu", attention="full")
    m = ITransformer(cfg).eval()
    assert list(m.state_dict().keys()) == spec_keys(2), list(m.state_dict().keys())
    x, mark = torch.randn(3, 96, 7), torch.rand(3, 96, 4) - 0.5
    with torch.no_grad():
        y, attns, enc = m.forecast_with_details(x, mark)
        assert y.shape == (3, 24, 7) and enc.shape == (3, 11, 16) and attns[0].shape == (3, 4, 11, 11)
        # Shift and scale equivariance of the non-stationary normalisation (variable tokens only).
        assert torch.allclose(m(5 * x + 3, mark), 5 * y + 3, atol=1e-4)
    print("itransformer_reference self-check OK")


if __name__ == "__main__":
    _self_check()
