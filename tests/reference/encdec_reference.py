"""Independent PyTorch reference of TSLib's Informer and Transformer (long-term forecast).

Written from /work/shared/docs/MODEL_SPEC.md ("Encoder-decoder families") and the
structure of TSLib's models/Informer.py, models/Transformer.py, layers/Embed.py and
layers/Transformer_EncDec.py; the encoder blocks (attention, EncoderLayer, ConvLayer,
Encoder, PositionalEmbedding) are patchtst_reference.py's, which are TSLib's classes.
Module and parameter names are TSLib's, so `state_dict()` keys equal a TSLib checkpoint's:

    enc_embedding.value_embedding.tokenConv.weight       [D, enc_in, 3]
    enc_embedding.position_embedding.pe                  [1, 5000, D]
    enc_embedding.temporal_embedding.embed.weight        [D, C]        (embed "timeF")
    enc_embedding.temporal_embedding.<x>_embed.emb.weight              (embed "fixed")
    enc_embedding.temporal_embedding.<x>_embed.weight                  (embed "learned")
    dec_embedding.*                                       (the same, dec_in channels)
    encoder.attn_layers.<i>.*, encoder.conv_layers.<i>.*  (Informer with distil),
    encoder.norm.*, decoder.layers.<i>.{self_attention,cross_attention,conv1,conv2,norm1,
    norm2,norm3}.*, decoder.norm.*, decoder.projection.*  [c_out, D]

Building and calling a model (config dict with TSLib's argument names):

    import encdec_reference as ed
    cfg = {"model": "Informer", "seq_len": 96, "label_len": 48, "pred_len": 96,
           "enc_in": 7, "dec_in": 7, "c_out": 7, "d_model": 512, "n_heads": 8,
           "e_layers": 2, "d_layers": 1, "d_ff": 2048, "factor": 3, "dropout": 0.1,
           "activation": "gelu", "embed": "timeF", "freq": "h", "distil": True,
           "features": "M"}
    model = ed.build_model(cfg, sampling="tslib")     # TSLib's random ProbSparse sample
    x_dec = ed.decoder_input(x_enc, cfg["label_len"], cfg["pred_len"])   # or from batch_y
    y = model(x_enc, x_mark_enc, x_dec, x_mark_dec)   # [B, pred_len, c_out]
    y = ed.forecast_columns(y, cfg["features"])       # TSLib's f_dim: last column for MS

Defaults follow TSLib's run.py (label_len 48, d_layers 1, factor 1, distil True, embed
"timeF", freq "h", activation "gelu", dropout 0.1, dec_in = c_out = enc_in when absent).
tsserve's own keys: "attention" ("prob" for Informer, "full" for Transformer by default),
"prob_layout" ("tslib" for Informer by default: TSLib hands ProbAttention's [B, H, L, E]
context to a [B, L, H*E] view without transposing, and Informer checkpoints were trained
with that; "canonical" transposes) and "prob_seed" (the deterministic sampler's seed).
`sampling` picks the ProbSparse key sample: "deterministic" (the server's
prob_sample_index, a pure function of the seed and the shapes) or "tslib"
(torch.randint from the global stream on every call, as TSLib trains and evaluates).

Time marks: `marks(unix_seconds, freq, embed)` gives TSLib's data_stamp [T, C] (timeF
features, or month/day/weekday/hour[/minute // 15] for fixed/learned); the decoder's
marks are the last label_len + pred_len rows of the input's and future steps' marks
(`decoder_marks`).

Differences from TSLib, each deliberate and documented:
- The minute table of a fixed/learned TemporalEmbedding exists for every minute frequency
  ("t", "min", "15min", ...); TSLib builds it only for the exact string "t" (a TSLib
  checkpoint trained with freq "15min" has no minute table: serve it with freq "h").
- ProbSparse cross-attention maps are [B, H, L_Q, L_K] (lazy rows uniform over the keys);
  TSLib's would be [B, H, L_K, L_K] and fails when L_Q > L_K (it never asks for them).
- The decoder's attention maps are returned (TSLib drops them).
"""

import math
import os
import re
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import patchtst_reference as ref  # noqa: E402
import tslib_timefeatures as tf  # noqa: E402

FAMILIES = ("Informer", "Transformer")


# --------------------------------------------------------------------------- time marks


def freq_unit(freq):
    """'15min' -> 'min' (a multiple reads the features of its unit, as pandas does)."""
    return re.sub(r"^\d+", "", freq)


def has_minute_table(freq):
    return freq_unit(freq) in ("t", "min")


def mark_width(embed, freq):
    """Columns of the marks the model reads for (embed, freq)."""
    if embed == "timeF":
        return len(tf.time_features_from_frequency_str(freq))
    return 5 if has_minute_table(freq) else 4


def marks(unix_seconds, freq="h", embed="timeF"):
    """Unix seconds (UTC) [T] -> float32 [T, C] marks, TSLib's data_stamp."""
    import numpy as np
    import pandas as pd
    seconds = np.asarray(unix_seconds, dtype=np.int64)
    if embed == "timeF":
        return torch.from_numpy(tf.stamp(seconds, freq, "timeF"))
    dates = pd.to_datetime(seconds, unit="s")
    columns = [dates.month, dates.day, dates.weekday, dates.hour]
    if has_minute_table(freq):
        columns.append(dates.minute // 15)
    return torch.from_numpy(np.stack([np.asarray(c, dtype=np.float32) for c in columns], 1))


def decoder_input(x_enc, label_len, pred_len):
    """TSLib's dec_inp: the last label_len input steps, then pred_len zeros: [B, L+F, N]."""
    B, _, N = x_enc.shape
    return torch.cat([x_enc[:, x_enc.shape[1] - label_len:, :],
                      torch.zeros(B, pred_len, N, dtype=x_enc.dtype, device=x_enc.device)], 1)


def decoder_input_from_batch_y(batch_y, label_len, pred_len):
    """TSLib's training loop: batch_y's first label_len steps, then zeros for the future."""
    zeros = torch.zeros_like(batch_y[:, -pred_len:, :]).float()
    return torch.cat([batch_y[:, :label_len, :], zeros], dim=1).float()


def decoder_marks(all_marks, label_len, pred_len):
    """all_marks [B, seq_len + pred_len, C] (input steps, then future) -> [B, L+F, C]."""
    return all_marks[:, all_marks.shape[1] - label_len - pred_len:, :]


def forecast_columns(y, features):
    """TSLib's f_dim: the last output column for "MS", every column otherwise."""
    return y[:, :, -1:] if features == "MS" else y


# --------------------------------------------------------------------------- embeddings


class TokenEmbedding(nn.Module):
    """Conv1d(c_in -> d_model, kernel 3, circular padding 1, no bias) over time."""

    def __init__(self, c_in, d_model):
        super().__init__()
        self.tokenConv = nn.Conv1d(c_in, d_model, kernel_size=3, padding=1,
                                   padding_mode="circular", bias=False)
        nn.init.kaiming_normal_(self.tokenConv.weight, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, x):  # [B, L, c_in] -> [B, L, D]
        return self.tokenConv(x.transpose(1, 2)).transpose(1, 2)


def sinusoid_table(rows, d_model):
    """The positional formula (PositionalEmbedding's pe), `rows` positions."""
    pos = torch.arange(rows, dtype=torch.float32)[:, None]
    rate = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32)
                     * -(math.log(10000.0) / d_model))
    w = torch.zeros(rows, d_model)
    w[:, 0::2] = torch.sin(pos * rate)
    w[:, 1::2] = torch.cos(pos * rate)
    return w


class FixedEmbedding(nn.Module):
    """A frozen sinusoid lookup table; stored in the state_dict as `emb.weight`."""

    def __init__(self, rows, d_model):
        super().__init__()
        self.emb = nn.Embedding(rows, d_model)
        self.emb.weight = nn.Parameter(sinusoid_table(rows, d_model), requires_grad=False)

    def forward(self, index):
        return self.emb(index).detach()


class TemporalEmbedding(nn.Module):
    """Sum of lookups of the integer marks [month, day, weekday, hour(, minute // 15)]."""

    def __init__(self, d_model, embed_type="fixed", freq="h"):
        super().__init__()
        table = FixedEmbedding if embed_type == "fixed" else nn.Embedding
        # TSLib's creation order (minute first), so state_dict keys come in its order.
        if has_minute_table(freq):
            self.minute_embed = table(4, d_model)
        self.hour_embed = table(24, d_model)
        self.weekday_embed = table(7, d_model)
        self.day_embed = table(32, d_model)
        self.month_embed = table(13, d_model)

    def forward(self, x_mark):
        x = x_mark.long()
        # TSLib's order of the sum: hour, weekday, day, month, minute.
        out = (self.hour_embed(x[:, :, 3]) + self.weekday_embed(x[:, :, 2])
               + self.day_embed(x[:, :, 1]) + self.month_embed(x[:, :, 0]))
        if hasattr(self, "minute_embed"):
            out = out + self.minute_embed(x[:, :, 4])
        return out


class TimeFeatureEmbedding(nn.Module):
    def __init__(self, d_model, freq="h"):
        super().__init__()
        self.embed = nn.Linear(mark_width("timeF", freq), d_model, bias=False)

    def forward(self, x_mark):
        return self.embed(x_mark)


class DataEmbedding(nn.Module):
    """TokenEmbedding(x) + TemporalEmbedding(mark) + PositionalEmbedding, then dropout."""

    def __init__(self, c_in, d_model, embed_type="timeF", freq="h", dropout=0.0):
        super().__init__()
        self.value_embedding = TokenEmbedding(c_in, d_model)
        self.position_embedding = ref.PositionalEmbedding(d_model)
        if embed_type == "timeF":
            self.temporal_embedding = TimeFeatureEmbedding(d_model, freq)
        else:
            self.temporal_embedding = TemporalEmbedding(d_model, embed_type, freq)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, x_mark):
        # TSLib's order of the sum: value + temporal + position.
        if x_mark is None:
            return self.dropout(self.value_embedding(x) + self.position_embedding(x.shape[1]))
        return self.dropout(self.value_embedding(x) + self.temporal_embedding(x_mark)
                            + self.position_embedding(x.shape[1]))


# --------------------------------------------------------------------------- decoder


class DecoderLayer(nn.Module):
    """x = norm1(x + SelfAttn(x)); x = norm2(x + Cross(x, enc)); norm3(x + FFN(x))."""

    def __init__(self, self_attention, cross_attention, d_model, d_ff, dropout=0.0,
                 activation="gelu"):
        super().__init__()
        self.self_attention = self_attention
        self.cross_attention = cross_attention
        self.conv1 = nn.Conv1d(d_model, d_ff, kernel_size=1)
        self.conv2 = nn.Conv1d(d_ff, d_model, kernel_size=1)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.act = F.relu if activation == "relu" else F.gelu

    def forward(self, x, cross):
        a, self_attn = self.self_attention(x, x, x)
        x = self.norm1(x + self.dropout(a))
        a, cross_attn = self.cross_attention(x, cross, cross)
        x = self.norm2(x + self.dropout(a))
        y = self.dropout(self.act(F.linear(x, self.conv1.weight[:, :, 0], self.conv1.bias)))
        y = self.dropout(F.linear(y, self.conv2.weight[:, :, 0], self.conv2.bias))
        return self.norm3(x + y), self_attn, cross_attn


class Decoder(nn.Module):
    def __init__(self, layers, norm_layer=None, projection=None):
        super().__init__()
        self.layers = nn.ModuleList(layers)
        self.norm = norm_layer
        self.projection = projection

    def forward(self, x, cross):
        self_attns, cross_attns = [], []
        for layer in self.layers:
            x, s, c = layer(x, cross)
            self_attns.append(s)
            cross_attns.append(c)
        if self.norm is not None:
            x = self.norm(x)
        if self.projection is not None:
            x = self.projection(x)
        return x, self_attns, cross_attns


# --------------------------------------------------------------------------- models


def complete_config(config):
    """The config with TSLib's defaults (and tsserve's per family) filled in."""
    c = dict(config)
    family = c.get("model", "Informer")
    assert family in FAMILIES, family
    c["model"] = family
    c.setdefault("label_len", 48)
    c.setdefault("d_layers", 1)
    c.setdefault("factor", 1)
    c.setdefault("dropout", 0.1)
    c.setdefault("activation", "gelu")
    c.setdefault("embed", "timeF")
    c.setdefault("freq", "h")
    c.setdefault("features", "M")
    c.setdefault("dec_in", c["enc_in"])
    c.setdefault("c_out", c["enc_in"])
    c.setdefault("distil", family == "Informer")
    c.setdefault("attention", "prob" if family == "Informer" else "full")
    c.setdefault("prob_layout", "tslib" if family == "Informer" else "canonical")
    c.setdefault("prob_seed", 0)
    assert not (family == "Transformer" and c["distil"]), "Transformer has no distilling"
    return c


class EncoderDecoder(nn.Module):
    """TSLib's Informer / Transformer. forward(x_enc, x_mark_enc, x_dec, x_mark_dec)."""

    def __init__(self, config, sampling="deterministic"):
        super().__init__()
        c = complete_config(config)
        self.config = c
        self.pred_len = c["pred_len"]
        D, H, dropout = c["d_model"], c["n_heads"], c["dropout"]

        def inner(mask_flag):
            if c["attention"] == "prob":
                return ref.ProbAttention(mask_flag, c["factor"], layout=c["prob_layout"],
                                         seed=c["prob_seed"], sampling=sampling)
            return ref.FullAttention(mask_flag, dropout=dropout)

        def attention(mask_flag):
            return ref.AttentionLayer(inner(mask_flag), D, H)

        # TSLib's attribute order per family (Transformer builds dec_embedding after the
        # encoder), so state_dict keys come in the order TSLib writes them.
        self.enc_embedding = DataEmbedding(c["enc_in"], D, c["embed"], c["freq"], dropout)
        if c["model"] == "Informer":
            self.dec_embedding = DataEmbedding(c["dec_in"], D, c["embed"], c["freq"], dropout)
        layers = [ref.EncoderLayer(attention(False), D, c["d_ff"], c["activation"], dropout)
                  for _ in range(c["e_layers"])]
        convs = ([ref.ConvLayer(D, padding=2) for _ in range(c["e_layers"] - 1)]
                 if c["distil"] else None)
        self.encoder = ref.Encoder(layers, convs, nn.LayerNorm(D))
        if c["model"] == "Transformer":
            self.dec_embedding = DataEmbedding(c["dec_in"], D, c["embed"], c["freq"], dropout)
        self.decoder = Decoder(
            [DecoderLayer(attention(True), attention(False), D, c["d_ff"], dropout,
                          c["activation"]) for _ in range(c["d_layers"])],
            norm_layer=nn.LayerNorm(D), projection=nn.Linear(D, c["c_out"], bias=True))

    def forecast_with_details(self, x_enc, x_mark_enc, x_dec, x_mark_dec):
        """-> dict: forecast [B, F, c_out], encoder_output [B, L_enc, D], encoder_attention,
        decoder_attention, cross_attention (lists per layer), encoder_lengths."""
        enc_in = self.enc_embedding(x_enc, x_mark_enc)
        enc_out, enc_attns = self.encoder(enc_in)
        dec_in = self.dec_embedding(x_dec, x_mark_dec)
        dec_out, self_attns, cross_attns = self.decoder(dec_in, enc_out)
        return {"forecast": dec_out[:, -self.pred_len:, :], "encoder_output": enc_out,
                "encoder_attention": enc_attns, "decoder_attention": self_attns,
                "cross_attention": cross_attns}

    def forward(self, x_enc, x_mark_enc, x_dec, x_mark_dec):
        return self.forecast_with_details(x_enc, x_mark_enc, x_dec, x_mark_dec)["forecast"]


def build_model(config, sampling="deterministic"):
    return EncoderDecoder(config, sampling)


def encoder_lengths(seq_len, e_layers, distil):
    """Each encoder layer's input length: halved (L -> floor((L + 1) / 2) + 1 with TSLib's
    circular padding 2) by each distilling conv."""
    lengths = [seq_len]
    for _ in range(e_layers - 1 if distil else 0):
        L = lengths[-1] + 2  # Conv1d(kernel 3, padding 2): L + 2
        lengths.append((L + 2 - 3) // 2 + 1)  # MaxPool1d(3, 2, padding 1)
    return lengths


# --------------------------------------------------------------------------- self-check


def _self_check():
    torch.manual_seed(0)
    B, T, Lb, Fh, N = 2, 24, 12, 8, 3
    stamps = 1451606400 + 3600 * torch.arange(T + Fh)
    for family, embed, freq, distil in (("Informer", "timeF", "h", True),
                                        ("Informer", "fixed", "t", False),
                                        ("Transformer", "learned", "h", False)):
        cfg = {"model": family, "seq_len": T, "label_len": Lb, "pred_len": Fh, "enc_in": N,
               "d_model": 16, "n_heads": 4, "e_layers": 3, "d_layers": 2, "d_ff": 32,
               "factor": 3, "embed": embed, "freq": freq, "distil": distil}
        m = build_model(cfg).eval()
        keys = list(m.state_dict().keys())
        assert "enc_embedding.value_embedding.tokenConv.weight" in keys
        assert ("encoder.conv_layers.0.downConv.weight" in keys) == distil
        all_marks = marks(stamps.numpy(), freq, embed)[None].expand(B, -1, -1)
        assert all_marks.shape[2] == mark_width(embed, freq)
        x = torch.randn(B, T, N)
        with torch.no_grad():
            d = m.forecast_with_details(x, all_marks[:, :T], decoder_input(x, Lb, Fh),
                                        decoder_marks(all_marks, Lb, Fh))
        assert d["forecast"].shape == (B, Fh, N)
        lengths = encoder_lengths(T, 3, distil)
        for a, L in zip(d["encoder_attention"], lengths):
            assert a.shape == (B, 4, L, L), (a.shape, L)
        L_out = d["encoder_output"].shape[1]
        assert d["cross_attention"][0].shape == (B, 4, Lb + Fh, L_out)
        assert d["decoder_attention"][1].shape == (B, 4, Lb + Fh, Lb + Fh)
    # Every query active: ProbSparse with the canonical layout is the Transformer's math.
    cfg = {"model": "Informer", "seq_len": T, "label_len": Lb, "pred_len": Fh, "enc_in": N,
           "d_model": 16, "n_heads": 4, "e_layers": 2, "d_layers": 1, "d_ff": 32,
           "factor": 100, "distil": False, "prob_layout": "canonical"}
    prob = build_model(cfg).eval()
    full = build_model(dict(cfg, attention="full")).eval()
    full.load_state_dict(prob.state_dict())
    x, mk = torch.randn(B, T, N), torch.rand(B, T + Fh, 4) - 0.5
    args = (x, mk[:, :T], decoder_input(x, Lb, Fh), decoder_marks(mk, Lb, Fh))
    with torch.no_grad():
        assert torch.allclose(prob(*args), full(*args), atol=1e-5)
        # TSLib's random sample: with every query active the sample picks nothing.
        tslib = build_model(cfg, sampling="tslib").eval()
        tslib.load_state_dict(prob.state_dict())
        assert torch.allclose(tslib(*args), full(*args), atol=1e-5)
    print("encdec_reference self-check OK")


if __name__ == "__main__":
    _self_check()
