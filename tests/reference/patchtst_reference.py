"""Independent PyTorch reference of PatchTST (TSLib / TFB) with Full or ProbSparse attention.

Written from /work/shared/docs/MODEL_SPEC.md (not copied from TSLib). Module and
parameter names follow the spec so that `state_dict()` keys equal those of a TSLib/TFB
checkpoint. The C++ implementation is tested against fixtures produced from this file
(see make_fixtures.py), and model/tools/train_patchtst.py trains the bundled model with it.

ProbAttention here is the server's deterministic variant: the key sample is a pure
function of (seed, L_Q, L_K, U_part) (see prob_sample_index), so an answer never depends
on the global random stream or on what else is in the batch.
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

MASK_64 = (1 << 64) - 1


# --------------------------------------------------------------------------- masking helpers


def _masked_softmax(scores, excluded):
    """softmax over the last dim with `excluded` positions (bool, broadcastable) at weight 0.

    A row whose positions are all excluded gets weights 0 instead of NaN.
    """
    excluded = excluded.expand_as(scores)
    scores = scores.masked_fill(excluded, float("-inf"))
    dead_row = excluded.all(dim=-1, keepdim=True)
    # Give dead rows finite scores so softmax stays finite, then zero them.
    scores = scores.masked_fill(dead_row, 0.0)
    return torch.softmax(scores, dim=-1).masked_fill(dead_row, 0.0)


def _key_padding(valid_lengths, S, device):
    """bool [B, S]: True where key s >= valid_lengths[b] (excluded)."""
    return torch.arange(S, device=device)[None, :] >= valid_lengths.to(device)[:, None]


# --------------------------------------------------------------------------- attention


class FullAttention(nn.Module):
    """Scaled dot-product attention. q [B,L,H,E], k/v [B,S,H,E] -> ([B,L,H,E], [B,H,L,S])."""

    def __init__(self, mask_flag, scale=None, dropout=0.0):
        super().__init__()
        self.mask_flag = mask_flag
        self.scale = scale
        self.dropout = nn.Dropout(dropout)  # on the weights, training only (as TSLib)

    def forward(self, queries, keys, values, valid_lengths=None):
        B, L, H, E = queries.shape
        S = keys.shape[1]
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(E)
        # matmul on [B,H,*,E] (einsum on the [B,L,H,E] layout is very slow on CPU in torch 1.13)
        Q, K, V = (t.transpose(1, 2) for t in (queries, keys, values))
        scores = (Q @ K.transpose(-1, -2)) * scale                  # [B,H,L,S]
        if self.mask_flag or valid_lengths is not None:
            excluded = torch.zeros(1, 1, L, S, dtype=torch.bool, device=queries.device)
            if self.mask_flag:
                excluded = excluded | torch.triu(
                    torch.ones(L, S, dtype=torch.bool, device=queries.device), diagonal=1)
            if valid_lengths is not None:
                excluded = excluded | _key_padding(valid_lengths, S, queries.device)[:, None, None, :]
            attn = _masked_softmax(scores, excluded)
        else:
            attn = torch.softmax(scores, dim=-1)
        context = self.dropout(attn) @ V                             # [B,H,L,E]
        return context.transpose(1, 2).contiguous(), attn


def splitmix64(z):
    z = (z + 0x9E3779B97F4A7C15) & MASK_64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK_64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK_64
    return z ^ (z >> 31)


def prob_sample_index(seed, L_Q, L_K, U_part):
    """Deterministic key sample [L_Q, U_part] (int64) shared by all batch rows and heads."""
    h = splitmix64(seed & MASK_64)
    h = splitmix64(h ^ L_Q)
    h = splitmix64(h ^ L_K)
    h = splitmix64(h ^ U_part)
    idx = [[splitmix64((h + l * U_part + j) & MASK_64) % L_K for j in range(U_part)]
           for l in range(L_Q)]
    return torch.tensor(idx, dtype=torch.int64).reshape(L_Q, U_part)


def prob_sizes(factor, L_Q, L_K):
    """(U_part, u): sampled keys per query and number of active queries."""
    U_part = min(factor * math.ceil(math.log(L_K)), L_K)
    u = min(factor * math.ceil(math.log(L_Q)), L_Q)
    return max(U_part, 1), max(u, 1)


class ProbAttention(nn.Module):
    """ProbSparse attention (Informer) with a deterministic sample; see MODEL_SPEC.md."""

    def __init__(self, mask_flag, factor=5, scale=None, layout="canonical", seed=0,
                 sampling="deterministic"):
        """sampling: "deterministic" (the server's prob_sample_index) or "tslib" (TSLib's
        torch.randint draw from the global random stream, one per call: what training uses)."""
        super().__init__()
        assert layout in ("canonical", "tslib"), layout
        assert sampling in ("deterministic", "tslib"), sampling
        self.mask_flag = mask_flag
        self.factor = factor
        self.scale = scale
        self.layout = layout
        self.seed = seed
        self.sampling = sampling

    def sample_index(self, L_Q, L_K, U_part):
        """[L_Q, U_part] int64 key indices shared by every batch row and head."""
        if self.sampling == "tslib":
            return torch.randint(L_K, (L_Q, U_part))
        return prob_sample_index(self.seed, L_Q, L_K, U_part)

    def forward(self, queries, keys, values, valid_lengths=None):
        B, L_Q, H, E = queries.shape
        L_K = keys.shape[1]
        dev = queries.device
        Q = queries.transpose(1, 2)  # [B,H,L_Q,E]
        K = keys.transpose(1, 2)     # [B,H,L_K,E]
        V = values.transpose(1, 2)   # [B,H,L_K,E]
        U_part, u = prob_sizes(self.factor, L_Q, L_K)
        idx = self.sample_index(L_Q, L_K, U_part).to(dev)

        # Sparsity measure M from the sampled keys (unscaled dot products).
        K_sample = K[:, :, idx, :]                                   # [B,H,L_Q,U_part,E]
        qk_sample = torch.einsum("bhle,bhlue->bhlu", Q, K_sample)    # [B,H,L_Q,U_part]
        if valid_lengths is None:
            M = qk_sample.max(dim=-1).values - qk_sample.sum(dim=-1) / L_K
        else:
            vl = valid_lengths.to(dev)
            keep = idx[None, :, :] < vl[:, None, None]               # [B,L_Q,U_part]
            keep = keep[:, None]                                     # [B,1,L_Q,U_part]
            mx = qk_sample.masked_fill(~keep, float("-inf")).max(dim=-1).values
            sm = qk_sample.masked_fill(~keep, 0.0).sum(dim=-1)
            M = mx - sm / vl.clamp(min=1).to(Q.dtype)[:, None, None]
        top = M.topk(u, dim=-1).indices                              # [B,H,u]
        # Diagnostic for fixtures: smallest gap between the u-th and (u+1)-th measure;
        # a tiny gap would let float rounding change which queries are active.
        self.last_topk_gap = _topk_gap(
            M, u, None if valid_lengths is None else valid_lengths.to(dev) > 0)

        # Exact scores of the active queries against all keys.
        scale = self.scale if self.scale is not None else 1.0 / math.sqrt(E)
        Q_top = torch.gather(Q, 2, top[..., None].expand(B, H, u, E))
        scores = torch.einsum("bhue,bhse->bhus", Q_top, K) * scale   # [B,H,u,L_K]
        key_pos = torch.arange(L_K, device=dev)
        excluded = torch.zeros(1, 1, 1, L_K, dtype=torch.bool, device=dev)
        if self.mask_flag:
            excluded = excluded | (key_pos[None, None, None, :] > top[..., None])
        if valid_lengths is not None:
            excluded = excluded | _key_padding(valid_lengths, L_K, dev)[:, None, None, :]
        attn_top = _masked_softmax(scores, excluded)                 # [B,H,u,L_K]

        # Lazy context and lazy attention rows.
        if valid_lengths is None:
            V_valid = V
            lazy_row = torch.full((B, 1, 1, L_K), 1.0 / L_K, dtype=Q.dtype, device=dev)
        else:
            pad = _key_padding(valid_lengths, L_K, dev)               # [B,L_K]
            V_valid = V.masked_fill(pad[:, None, :, None], 0.0)
            count = valid_lengths.to(dev).clamp(min=1).to(Q.dtype)[:, None, None, None]
            lazy_row = (~pad).to(Q.dtype)[:, None, None, :] / count  # 0 everywhere if vl=0
        if self.mask_flag:
            assert L_Q == L_K, "causal ProbAttention needs L_Q == L_K"
            context = V_valid.cumsum(dim=2)
        else:
            if valid_lengths is None:
                mean = V.mean(dim=2, keepdim=True)
            else:
                mean = V_valid.sum(dim=2, keepdim=True) / count
            context = mean.expand(B, H, L_Q, E)
        context = context.clone()
        attn = lazy_row.expand(B, H, L_Q, L_K).clone()

        # Active rows.
        context.scatter_(2, top[..., None].expand(B, H, u, E), attn_top @ V)
        attn.scatter_(2, top[..., None].expand(B, H, u, L_K), attn_top)

        if self.layout == "canonical":
            out = context.transpose(1, 2).contiguous()
        else:  # TSLib quirk: reinterpret [B,H,L,E] memory as [B,L,H,E]
            out = context.contiguous().view(B, L_Q, H, E)
        return out, attn


def _topk_gap(M, u, live=None):
    if u >= M.shape[-1]:
        return float("inf")
    v = M.sort(dim=-1, descending=True).values
    gap = v[..., u - 1] - v[..., u]           # NaN for a tie at -inf: counts as ambiguous
    if live is not None:
        gap = gap[live]  # batch rows without valid keys give zeros whatever is selected
    gap = torch.nan_to_num(gap, nan=0.0)
    return float(gap.min()) if gap.numel() else float("inf")


def make_inner_attention(cfg, dropout=0.0):
    """Inner attention from a fixture-style dict {kind, mask_flag, factor, layout, seed}."""
    if cfg["kind"] == "full":
        return FullAttention(cfg.get("mask_flag", False), dropout=dropout)
    if cfg["kind"] == "prob":
        return ProbAttention(cfg.get("mask_flag", False), cfg.get("factor", 5),
                             layout=cfg.get("layout", "canonical"), seed=cfg.get("seed", 0))
    raise ValueError("unknown attention kind %r" % cfg["kind"])


class AttentionLayer(nn.Module):
    """Multi-head wrapper: projections, inner attention, output projection."""

    def __init__(self, inner, d_model, n_heads):
        super().__init__()
        E = d_model // n_heads
        self.inner_attention = inner
        self.query_projection = nn.Linear(d_model, E * n_heads)
        self.key_projection = nn.Linear(d_model, E * n_heads)
        self.value_projection = nn.Linear(d_model, E * n_heads)
        self.out_projection = nn.Linear(E * n_heads, d_model)
        self.n_heads = n_heads

    def forward(self, queries, keys, values, valid_lengths=None):
        B, L, _ = queries.shape
        S = keys.shape[1]
        H = self.n_heads
        q = self.query_projection(queries).view(B, L, H, -1)
        k = self.key_projection(keys).view(B, S, H, -1)
        v = self.value_projection(values).view(B, S, H, -1)
        out, attn = self.inner_attention(q, k, v, valid_lengths)
        return self.out_projection(out.reshape(B, L, -1)), attn


# --------------------------------------------------------------------------- encoder


class EncoderLayer(nn.Module):
    """Post-norm transformer block; the FFN is two kernel-1 Conv1d (MODEL_SPEC step 4)."""

    def __init__(self, attention, d_model, d_ff, activation="gelu", dropout=0.0):
        super().__init__()
        self.attention = attention
        self.conv1 = nn.Conv1d(d_model, d_ff, kernel_size=1)
        self.conv2 = nn.Conv1d(d_ff, d_model, kernel_size=1)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.act = F.relu if activation == "relu" else F.gelu  # F.gelu is the exact erf form

    def forward(self, x, valid_lengths=None):
        a, attn = self.attention(x, x, x, valid_lengths)
        x = self.norm1(x + self.dropout(a))
        # A kernel-1 Conv1d is a Linear over D: apply it as one, with the Conv1d's weights.
        y = self.dropout(self.act(F.linear(x, self.conv1.weight[:, :, 0], self.conv1.bias)))
        y = self.dropout(F.linear(y, self.conv2.weight[:, :, 0], self.conv2.bias))
        return self.norm2(x + y), attn


class ConvLayer(nn.Module):
    """Informer distilling block; [B,L,D] -> [B,~L/2,D]."""

    def __init__(self, c_in, padding=2):
        super().__init__()
        self.downConv = nn.Conv1d(c_in, c_in, kernel_size=3, padding=padding,
                                  padding_mode="circular")
        self.norm = nn.BatchNorm1d(c_in)
        self.activation = nn.ELU()
        self.maxPool = nn.MaxPool1d(kernel_size=3, stride=2, padding=1)

    def forward(self, x):
        x = self.downConv(x.transpose(1, 2))
        x = self.maxPool(self.activation(self.norm(x)))
        return x.transpose(1, 2)


class Encoder(nn.Module):
    def __init__(self, attn_layers, conv_layers=None, norm_layer=None):
        super().__init__()
        self.attn_layers = nn.ModuleList(attn_layers)
        self.conv_layers = nn.ModuleList(conv_layers) if conv_layers is not None else None
        self.norm = norm_layer

    def forward(self, x, valid_lengths=None):
        attns = []
        if self.conv_layers is not None:
            # Lengths shrink after each conv layer, so key padding is not carried through.
            assert valid_lengths is None
            for attn_layer, conv_layer in zip(self.attn_layers, self.conv_layers):
                x, attn = attn_layer(x)
                x = conv_layer(x)
                attns.append(attn)
            x, attn = self.attn_layers[-1](x)
            attns.append(attn)
        else:
            for attn_layer in self.attn_layers:
                x, attn = attn_layer(x, valid_lengths)
                attns.append(attn)
        if self.norm is not None:
            x = self.norm(x)
        return x, attns


# --------------------------------------------------------------------------- PatchTST


class Transpose(nn.Module):
    """Parameterless; lets BatchNorm1d act on the D channel inside an nn.Sequential."""

    def __init__(self, dim0, dim1):
        super().__init__()
        self.dim0, self.dim1 = dim0, dim1

    def forward(self, x):
        return x.transpose(self.dim0, self.dim1)


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pos = torch.arange(max_len, dtype=torch.float32)[:, None]
        w = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32)
                      * -(math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * w)
        pe[:, 1::2] = torch.cos(pos * w)
        self.register_buffer("pe", pe[None])  # persistent: it is in TSLib checkpoints

    def forward(self, n):
        return self.pe[:, :n]


class PatchEmbedding(nn.Module):
    def __init__(self, d_model, patch_len, stride, dropout=0.0):
        super().__init__()
        self.patch_len, self.stride = patch_len, stride
        self.value_embedding = nn.Linear(patch_len, d_model, bias=False)
        self.position_embedding = PositionalEmbedding(d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        """x [B,N,T] -> ([B*N,P,D], N)."""
        n_vars = x.shape[1]
        x = F.pad(x, (0, self.stride), mode="replicate")
        x = x.unfold(-1, self.patch_len, self.stride)            # [B,N,P,patch_len]
        x = x.reshape(-1, x.shape[2], x.shape[3])
        x = self.value_embedding(x) + self.position_embedding(x.shape[1])
        return self.dropout(x), n_vars


class FlattenHead(nn.Module):
    def __init__(self, nf, target_window, dropout=0.0):
        super().__init__()
        self.linear = nn.Linear(nf, target_window)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):  # [B,N,D,P] -> [B,N,F], flattening d-major
        return self.dropout(self.linear(x.flatten(start_dim=-2)))


def patch_count(seq_len, patch_len, stride):
    return (seq_len - patch_len) // stride + 2


def build_encoder(cfg, dropout=0.0):
    """Encoder part of a PatchTST config (shared by PatchTST and the fixture script)."""
    D = cfg["d_model"]
    if cfg.get("attention", "full") == "prob":
        inner = lambda: ProbAttention(False, cfg["factor"], layout=cfg.get("prob_layout", "canonical"),
                                      seed=cfg.get("prob_seed", 0))
    else:
        inner = lambda: FullAttention(False, dropout=dropout)
    layers = [EncoderLayer(AttentionLayer(inner(), D, cfg["n_heads"]), D, cfg["d_ff"],
                           cfg.get("activation", "gelu"), dropout)
              for _ in range(cfg["e_layers"])]
    if cfg.get("norm", "batch") == "batch":
        norm = nn.Sequential(Transpose(1, 2), nn.BatchNorm1d(D), Transpose(1, 2))
    else:
        norm = nn.LayerNorm(D)
    return Encoder(layers, norm_layer=norm)


class PatchTST(nn.Module):
    """Long-term forecaster: x [B,T,N] -> [B,F,N]. `config` uses TSLib argument names."""

    def __init__(self, config):
        super().__init__()
        self.config = dict(config)
        c = self.config
        dropout = c.get("dropout", 0.0)
        self.seq_len, self.pred_len = c["seq_len"], c["pred_len"]
        self.patch_embedding = PatchEmbedding(c["d_model"], c["patch_len"], c["stride"], dropout)
        self.encoder = build_encoder(c, dropout)
        P = patch_count(c["seq_len"], c["patch_len"], c["stride"])
        self.head = FlattenHead(c["d_model"] * P, c["pred_len"], dropout)

    def forecast_with_details(self, x):
        """-> (forecast [B,F,N], attns list of [B*N,H,P,P], encoder output [B*N,P,D])."""
        mean = x.mean(dim=1, keepdim=True)
        x = x - mean
        std = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + 1e-5)
        x = x / std
        z, n_vars = self.patch_embedding(x.permute(0, 2, 1))
        z, attns = self.encoder(z)
        enc_out = z
        z = z.reshape(-1, n_vars, z.shape[-2], z.shape[-1]).permute(0, 1, 3, 2)  # [B,N,D,P]
        y = self.head(z).permute(0, 2, 1)                                         # [B,F,N]
        y = y * std + mean
        return y, attns, enc_out

    def forward(self, x):
        return self.forecast_with_details(x)[0]


# --------------------------------------------------------------------------- self-check


def spec_keys(norm):
    """The state_dict keys MODEL_SPEC.md lists for its concrete config (e_layers=2)."""
    keys = ["patch_embedding.value_embedding.weight", "patch_embedding.position_embedding.pe"]
    for i in range(2):
        p = "encoder.attn_layers.%d." % i
        for proj in ("query", "key", "value", "out"):
            keys += [p + "attention.%s_projection.weight" % proj, p + "attention.%s_projection.bias" % proj]
        keys += [p + "conv1.weight", p + "conv1.bias", p + "conv2.weight", p + "conv2.bias",
                 p + "norm1.weight", p + "norm1.bias", p + "norm2.weight", p + "norm2.bias"]
    if norm == "batch":
        keys += ["encoder.norm.1." + s for s in
                 ("weight", "bias", "running_mean", "running_var", "num_batches_tracked")]
    else:
        keys += ["encoder.norm.weight", "encoder.norm.bias"]
    return keys + ["head.linear.weight", "head.linear.bias"]


def _self_check():
    torch.manual_seed(0)
    # ProbAttention with every query active and every key sampled is full attention.
    for causal in (False, True):
        B, L, H, E = 2, 12, 3, 8
        q, k, v = (torch.randn(B, L, H, E) for _ in range(3))
        vl = torch.tensor([12, 5])
        for lengths in (None, vl):
            ref_c, ref_a = FullAttention(causal)(q, k, v, lengths)
            c, a = ProbAttention(causal, factor=100)(q, k, v, lengths)
            assert torch.allclose(c, ref_c, atol=1e-6), (causal, lengths)
            assert torch.allclose(a, ref_a, atol=1e-6), (causal, lengths)

    cfg = dict(seq_len=96, pred_len=96, enc_in=7, d_model=16, n_heads=4, e_layers=2, d_ff=32,
               factor=3, activation="gelu", patch_len=16, stride=8, attention="full",
               prob_layout="canonical", prob_seed=0, dropout=0.0)
    shapes = {"patch_embedding.position_embedding.pe": (1, 5000, 16),
              "head.linear.weight": (96, 192), "encoder.attn_layers.0.conv1.weight": (32, 16, 1)}
    for norm in ("batch", "layer"):
        m = PatchTST(dict(cfg, norm=norm)).eval()
        sd = m.state_dict()
        assert list(sd.keys()) == spec_keys(norm), (norm, list(sd.keys()))
        for key, shape in shapes.items():
            assert tuple(sd[key].shape) == shape, (key, sd[key].shape)
        assert m(torch.randn(2, 96, 7)).shape == (2, 96, 7)

    # The sample is a pure function of its arguments.
    assert torch.equal(prob_sample_index(7, 96, 96, 25), prob_sample_index(7, 96, 96, 25))
    print("patchtst_reference self-check OK")


if __name__ == "__main__":
    _self_check()
