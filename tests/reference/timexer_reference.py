"""PyTorch reference of TimeXer (Wang et al., NeurIPS 2024) as TSLib's models/TimeXer.py has it.

Follows TSLib's module line by line (thuml/Time-Series-Library, models/TimeXer.py at commit
4e938a1, MIT licence: EnEmbedding, EncoderLayer, Encoder, FlattenHead, forecast and
forecast_multi), eval mode, with the attention classes, the positional embedding and the
inverted embedding of patchtst_reference.py / itransformer_reference.py, which are TSLib's
(layers/SelfAttention_Family.py, layers/Embed.py). The one change: every attention returns
its softmax weights (TSLib builds FullAttention with output_attention=False and discards
them), so fixtures can hold the maps; the forecast is unchanged.

`check_against_tslib(root, ...)` runs TSLib's own file from a checkout and asserts equal
forecasts (within 1e-6) on the same state_dict (make_timexer_fixtures.py
--tslib ROOT does it before writing), so the fixtures are TSLib's module's numbers.

Module names give TSLib's state_dict keys:

    en_embedding.glb_token                     [1, n_vars, 1, D]   (n_vars: 1 for MS, enc_in for M)
    en_embedding.value_embedding.weight        [D, patch_len]      (no bias)
    en_embedding.position_embedding.pe         [1, 5000, D]
    ex_embedding.value_embedding.{weight,bias} [D, seq_len], [D]
    encoder.layers.<i>.{self_attention,cross_attention}.{query,key,value,out}_projection.*
    encoder.layers.<i>.{conv1,conv2,norm1,norm2,norm3}.*
    encoder.norm.*, head.linear.{weight,bias}  [pred_len, D * (seq_len // patch_len + 1)]
"""

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import itransformer_reference as itr  # noqa: E402
import patchtst_reference as ref  # noqa: E402


class FlattenHead(nn.Module):
    def __init__(self, nf, target_window, dropout=0.0):
        super().__init__()
        self.flatten = nn.Flatten(start_dim=-2)
        self.linear = nn.Linear(nf, target_window)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):  # [B, n_vars, D, L] -> [B, n_vars, F], flattening D-major
        return self.dropout(self.linear(self.flatten(x)))


class EnEmbedding(nn.Module):
    """The endogenous variables' non-overlapping patches, then a learned global token each."""

    def __init__(self, n_vars, d_model, patch_len, dropout=0.0):
        super().__init__()
        self.patch_len = patch_len
        self.value_embedding = nn.Linear(patch_len, d_model, bias=False)
        self.glb_token = nn.Parameter(torch.randn(1, n_vars, 1, d_model))
        self.position_embedding = ref.PositionalEmbedding(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):  # x [B, n_vars, T] -> [B * n_vars, patch_num + 1, D]
        n_vars = x.shape[1]
        glb = self.glb_token.repeat((x.shape[0], 1, 1, 1))
        x = x.unfold(dimension=-1, size=self.patch_len, step=self.patch_len)
        x = torch.reshape(x, (x.shape[0] * x.shape[1], x.shape[2], x.shape[3]))
        x = self.value_embedding(x) + self.position_embedding(x.shape[1])
        x = torch.reshape(x, (-1, n_vars, x.shape[-2], x.shape[-1]))
        x = torch.cat([x, glb], dim=2)
        x = torch.reshape(x, (x.shape[0] * x.shape[1], x.shape[2], x.shape[3]))
        return self.dropout(x), n_vars


class EncoderLayer(nn.Module):
    def __init__(self, self_attention, cross_attention, d_model, d_ff, dropout=0.0,
                 activation="relu"):
        super().__init__()
        self.self_attention = self_attention
        self.cross_attention = cross_attention
        self.conv1 = nn.Conv1d(in_channels=d_model, out_channels=d_ff, kernel_size=1)
        self.conv2 = nn.Conv1d(in_channels=d_ff, out_channels=d_model, kernel_size=1)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.activation = F.relu if activation == "relu" else F.gelu

    def forward(self, x, cross):
        """x [B * n_vars, L, D], cross [B, V, D] -> x, self map [B*n_vars, H, L, L],
        cross map [B, H, n_vars, V]."""
        B, L, D = cross.shape
        a, self_map = self.self_attention(x, x, x)
        x = self.norm1(x + self.dropout(a))

        x_glb_ori = x[:, -1, :].unsqueeze(1)
        x_glb = torch.reshape(x_glb_ori, (B, -1, D))
        x_glb_attn, cross_map = self.cross_attention(x_glb, cross, cross)
        x_glb_attn = self.dropout(x_glb_attn)
        x_glb_attn = torch.reshape(
            x_glb_attn, (x_glb_attn.shape[0] * x_glb_attn.shape[1], x_glb_attn.shape[2])).unsqueeze(1)
        x_glb = self.norm2(x_glb_ori + x_glb_attn)

        y = x = torch.cat([x[:, :-1, :], x_glb], dim=1)
        y = self.dropout(self.activation(self.conv1(y.transpose(-1, 1))))
        y = self.dropout(self.conv2(y).transpose(-1, 1))
        return self.norm3(x + y), self_map, cross_map


class Encoder(nn.Module):
    def __init__(self, layers, norm_layer):
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = norm_layer

    def forward(self, x, cross):
        self_maps, cross_maps = [], []
        for layer in self.layers:
            x, s, c = layer(x, cross)
            self_maps.append(s)
            cross_maps.append(c)
        return self.norm(x), self_maps, cross_maps


def attention_layer(d_model, n_heads, dropout):
    return ref.AttentionLayer(ref.FullAttention(False, dropout=dropout), d_model, n_heads)


class TimeXer(nn.Module):
    """x [B,T,N] (+ x_mark [B,T,C]) -> [B,F,1] (features MS or S) or [B,F,N] (M).
    `config` uses TSLib's argument names (features, use_norm, patch_len, ...)."""

    def __init__(self, config):
        super().__init__()
        c = dict(config)
        self.config = c
        dropout = c.get("dropout", 0.0)
        self.features = c.get("features", "M")
        self.seq_len, self.pred_len = c["seq_len"], c["pred_len"]
        self.use_norm = bool(c.get("use_norm", 1))
        self.patch_len = c.get("patch_len", 16)
        self.patch_num = self.seq_len // self.patch_len
        self.n_vars = 1 if self.features == "MS" else c["enc_in"]
        D = c["d_model"]
        self.en_embedding = EnEmbedding(self.n_vars, D, self.patch_len, dropout)
        self.ex_embedding = itr.DataEmbeddingInverted(self.seq_len, D, dropout)
        self.encoder = Encoder(
            [EncoderLayer(attention_layer(D, c["n_heads"], dropout),
                          attention_layer(D, c["n_heads"], dropout), D, c["d_ff"], dropout,
                          c.get("activation", "gelu"))
             for _ in range(c["e_layers"])],
            nn.LayerNorm(D))
        self.head = FlattenHead(D * (self.patch_num + 1), self.pred_len, dropout)

    def forecast_with_details(self, x_enc, x_mark=None):
        """-> (forecast, self maps per layer [B*n_vars,H,L,L], cross maps per layer
        [B,H,n_vars,V], encoder output [B*n_vars, L, D] after the final norm)."""
        if self.use_norm:
            means = x_enc.mean(1, keepdim=True).detach()
            x_enc = x_enc - means
            stdev = torch.sqrt(torch.var(x_enc, dim=1, keepdim=True, unbiased=False) + 1e-5)
            x_enc = x_enc / stdev
        multi = self.features == "M"  # TSLib's forward: forecast_multi for "M" alone
        if not multi:  # TSLib's forecast ("MS", "S"): the target is the last variable
            endogenous, exogenous = x_enc[:, :, -1].unsqueeze(-1).permute(0, 2, 1), x_enc[:, :, :-1]
        else:  # forecast_multi: every variable is endogenous and a covariate token
            endogenous, exogenous = x_enc.permute(0, 2, 1), x_enc
        en_embed, n_vars = self.en_embedding(endogenous)
        ex_embed = self.ex_embedding(exogenous, x_mark)
        enc_out, self_maps, cross_maps = self.encoder(en_embed, ex_embed)
        z = torch.reshape(enc_out, (-1, n_vars, enc_out.shape[-2], enc_out.shape[-1]))
        dec_out = self.head(z.permute(0, 1, 3, 2)).permute(0, 2, 1)
        if self.use_norm:
            if not multi:
                dec_out = dec_out * stdev[:, 0, -1:].unsqueeze(1).repeat(1, self.pred_len, 1)
                dec_out = dec_out + means[:, 0, -1:].unsqueeze(1).repeat(1, self.pred_len, 1)
            else:
                dec_out = dec_out * stdev[:, 0, :].unsqueeze(1).repeat(1, self.pred_len, 1)
                dec_out = dec_out + means[:, 0, :].unsqueeze(1).repeat(1, self.pred_len, 1)
        return dec_out[:, -self.pred_len:, :], self_maps, cross_maps, enc_out

    def forward(self, x_enc, x_mark=None):
        return self.forecast_with_details(x_enc, x_mark)[0]


def spec_keys(e_layers):
    keys = ["en_embedding.glb_token", "en_embedding.value_embedding.weight",
            "en_embedding.position_embedding.pe", "ex_embedding.value_embedding.weight",
            "ex_embedding.value_embedding.bias"]
    for i in range(e_layers):
        p = "encoder.layers.%d." % i
        for attention in ("self_attention", "cross_attention"):
            for proj in ("query", "key", "value", "out"):
                keys += [p + "%s.%s_projection.weight" % (attention, proj),
                         p + "%s.%s_projection.bias" % (attention, proj)]
        keys += [p + "conv1.weight", p + "conv1.bias", p + "conv2.weight", p + "conv2.bias"]
        for norm in ("norm1", "norm2", "norm3"):
            keys += [p + norm + ".weight", p + norm + ".bias"]
    return keys + ["encoder.norm.weight", "encoder.norm.bias", "head.linear.weight",
                   "head.linear.bias"]


class _TSLibArgs:
    def __init__(self, config):
        defaults = {"task_name": "long_term_forecast", "features": "M", "use_norm": 1,
                    "patch_len": 16, "factor": 1, "dropout": 0.1, "embed": "timeF", "freq": "h",
                    "activation": "gelu"}
        for k, v in dict(defaults, **config).items():
            setattr(self, k, v)


def check_against_tslib(tslib_root, config, state_dict, x, x_mark, atol=1e-6):
    """Loads TSLib's models/TimeXer.py from `tslib_root` (its layers/ too; reformer_pytorch,
    and einops, which TSLib's attention module imports for other classes, are stubbed when
    absent) with `state_dict` and asserts its forecast is within `atol` of this reference's
    (TSLib's FullAttention multiplies with einsum, this reference with matmul, so the last
    bits may differ). Returns TSLib's forecast and the largest difference."""
    import types
    for name, attrs in (("reformer_pytorch", ("LSHSelfAttention",)),
                        ("einops", ("rearrange", "repeat"))):
        try:
            __import__(name)
        except ImportError:
            stub = types.ModuleType(name)
            for attr in attrs:
                setattr(stub, attr, None)
            sys.modules[name] = stub
    if tslib_root not in sys.path:
        sys.path.insert(0, tslib_root)
    from models import TimeXer as tslib_timexer  # noqa: E402
    model = tslib_timexer.Model(_TSLibArgs(config)).eval()
    model.load_state_dict(state_dict)
    with torch.no_grad():
        theirs = model(x, x_mark, None, None)
        ours = TimeXer(config).eval()
        ours.load_state_dict(state_dict)
        mine = ours(x, x_mark)
    worst = float((theirs - mine).abs().max())
    assert theirs.shape == mine.shape and worst <= atol, (theirs.shape, mine.shape, worst)
    return theirs, worst


def _self_check():
    torch.manual_seed(0)
    for features, N_out in (("MS", 1), ("M", 7)):
        cfg = dict(seq_len=96, pred_len=24, enc_in=7, d_model=16, n_heads=4, e_layers=2, d_ff=32,
                   patch_len=16, features=features, use_norm=1)
        m = TimeXer(cfg).eval()
        assert list(m.state_dict().keys()) == spec_keys(2), list(m.state_dict().keys())
        x, mark = torch.randn(3, 96, 7), torch.rand(3, 96, 4) - 0.5
        with torch.no_grad():
            y, self_maps, cross_maps, enc = m.forecast_with_details(x, mark)
            n_vars = 1 if features == "MS" else 7
            V = (6 if features == "MS" else 7) + 4
            assert y.shape == (3, 24, N_out)
            assert self_maps[0].shape == (3 * n_vars, 4, 7, 7), self_maps[0].shape
            assert cross_maps[0].shape == (3, 4, n_vars, V), cross_maps[0].shape
            assert enc.shape == (3 * n_vars, 7, 16)
    print("timexer_reference self-check OK")


if __name__ == "__main__":
    _self_check()
