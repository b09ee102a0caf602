"""Write the checkpoint files that tests/model/checkpoint_file_test.cpp reads.

    /usr/bin/python3 tests/reference/make_checkpoint_files.py --out DIR

Everything is written by real PyTorch (torch.save) or, for safetensors and for the
hand-crafted malformed archives, byte by byte from the format definitions. The expected
tensors go to DIR/expected.pt, a plain dict {"<file>|<tensor name>": tensor} that the
C++ test reads with LibTorch's own torch::pickle_load, an independent loader.
Deterministic: fixed seeds, no timestamps in the data.
"""

import argparse
import collections
import copy
import io
import json
import os
import pickle
import struct
import zipfile

import torch
import torch.nn as nn

# --------------------------------------------------------------------------------------
# A small model whose state_dict has the key layout of TSLib's PatchTST (with the
# BatchNorm final norm, so there is an int64 0-dim num_batches_tracked).


class Transpose(nn.Module):
    def forward(self, x):
        return x.transpose(1, 2)


class AttentionLayer(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.query_projection = nn.Linear(d_model, d_model)
        self.key_projection = nn.Linear(d_model, d_model)
        self.value_projection = nn.Linear(d_model, d_model)
        self.out_projection = nn.Linear(d_model, d_model)


class EncoderLayer(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.attention = AttentionLayer(d_model)
        self.conv1 = nn.Conv1d(d_model, d_ff, 1)
        self.conv2 = nn.Conv1d(d_ff, d_model, 1)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len):
        super().__init__()
        self.register_buffer("pe", torch.randn(1, max_len, d_model))


class PatchEmbedding(nn.Module):
    def __init__(self, patch_len, d_model):
        super().__init__()
        self.value_embedding = nn.Linear(patch_len, d_model, bias=False)
        self.position_embedding = PositionalEmbedding(d_model, 20)


class Encoder(nn.Module):
    def __init__(self, d_model, d_ff, layers):
        super().__init__()
        self.attn_layers = nn.ModuleList([EncoderLayer(d_model, d_ff) for _ in range(layers)])
        self.norm = nn.Sequential(Transpose(), nn.BatchNorm1d(d_model), Transpose())


class Head(nn.Module):
    def __init__(self, inputs, outputs):
        super().__init__()
        self.linear = nn.Linear(inputs, outputs)


class TinyPatchTST(nn.Module):
    def __init__(self, patch_len=4, d_model=8, d_ff=16, layers=2, patches=3, pred_len=5):
        super().__init__()
        self.patch_embedding = PatchEmbedding(patch_len, d_model)
        self.encoder = Encoder(d_model, d_ff, layers)
        self.head = Head(d_model * patches, pred_len)


def make_model():
    torch.manual_seed(1234)
    model = TinyPatchTST()
    bn = model.encoder.norm[1]
    with torch.no_grad():
        bn.running_mean.copy_(torch.randn_like(bn.running_mean))
        bn.running_var.copy_(torch.rand_like(bn.running_var) + 0.5)
        bn.num_batches_tracked.fill_(7)
    return model.eval()


# --------------------------------------------------------------------------------------
# safetensors, written by hand (the safetensors package is not installed).

SAFETENSORS_DTYPES = {
    torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8",
    torch.uint8: "U8", torch.bool: "BOOL",
}


def tensor_bytes(t):
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16; same bits as int16
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def write_safetensors(path, tensors, metadata=None):
    header, chunks, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, t in tensors.items():
        data = tensor_bytes(t)
        header[name] = {"dtype": SAFETENSORS_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the reference writer pads the header to 8 bytes
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for c in chunks:
            f.write(c)


# --------------------------------------------------------------------------------------
# Hand-crafted torch.save archives: a pickle that names storages by persistent id, in a zip
# with the layout torch.save uses (one top folder; data.pkl, data/<key>, version).


class FakeStorage:
    def __init__(self, key, numel, storage_type=torch.FloatStorage):
        self.key, self.numel, self.storage_type = key, numel, storage_type


class FakeTensor:
    def __init__(self, storage, offset, size, stride, extra_args=()):
        self.args = (storage, offset, tuple(size), tuple(stride), False,
                     collections.OrderedDict()) + tuple(extra_args)

    def __reduce__(self):
        return (torch._utils._rebuild_tensor_v2, self.args)


class StoragePickler(pickle.Pickler):
    def persistent_id(self, obj):
        if isinstance(obj, FakeStorage):
            return ("storage", obj.storage_type, obj.key, "cpu", obj.numel)
        return None


def pickle_bytes(obj):
    buf = io.BytesIO()
    StoragePickler(buf, protocol=2).dump(obj)
    return buf.getvalue()


def write_torch_zip(path, records, folder="archive"):
    """records: name -> bytes, written in order (data.pkl first, as torch.save does)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in records.items():
            # A fixed timestamp keeps the output byte-identical from run to run.
            full = folder + "/" + name if folder else name
            z.writestr(zipfile.ZipInfo(full, date_time=(2020, 1, 1, 0, 0, 0)), data)


def zip_records(path):
    """The records of a torch.save archive, without the top folder, in archive order."""
    with zipfile.ZipFile(path) as z:
        return collections.OrderedDict(
            (info.filename.split("/", 1)[1], z.read(info)) for info in z.infolist())


def floats(values):
    return struct.pack("<%df" % len(values), *values)


class Exploit:
    """What a malicious checkpoint embeds: unpickling it would call os.system."""

    def __reduce__(self):
        return (os.system, ("echo this must never run",))


# --------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)

    def path(name):
        return os.path.join(out, name)

    expected = {}

    def expect(file, tensors):
        for name, t in tensors.items():
            # On the CPU: the reader loads every tensor there, whatever device a file names
            # (DataParallel's state_dict is on cuda:0 where a GPU is visible).
            expected[file + "|" + name] = t.detach().cpu().clone().contiguous()

    model = make_model()
    sd = model.state_dict()

    # Valid torch.save files.
    torch.save(sd, path("state_dict_ordered.pt"))
    expect("state_dict_ordered.pt", sd)

    torch.save(dict(sd), path("state_dict_plain.pt"))
    expect("state_dict_plain.pt", sd)

    parallel = nn.DataParallel(copy.deepcopy(model)).state_dict()  # keys get "module."
    assert all(k.startswith("module.") for k in parallel)
    torch.save(parallel, path("state_dict_module_prefix.pt"))
    expect("state_dict_module_prefix.pt", parallel)

    sd64 = copy.deepcopy(model).double().state_dict()
    torch.save(sd64, path("state_dict_float64.pt"))
    expect("state_dict_float64.pt", sd64)

    big = torch.arange(60, dtype=torch.float32).reshape(6, 10)
    views = collections.OrderedDict([
        ("big", big),
        ("slice", big[1:4, 2:7]),           # non-contiguous, offset 12
        ("row", big[2]),                    # contiguous, offset 20
        ("column", big[:, 3]),              # stride 10, offset 3
        ("transposed", big.t()),
        ("expanded", torch.tensor([1.5, -2.5]).expand(3, 2)),  # stride 0
        ("scalar", torch.tensor(3.25)),
        ("empty", torch.zeros(0, 3)),
        ("num_batches_tracked", torch.tensor(7)),  # int64, 0-dim
    ])
    torch.save(views, path("views.pt"))
    expect("views.pt", views)

    torch.manual_seed(99)
    dtypes = collections.OrderedDict([
        ("f32", torch.randn(2, 3)),
        ("f64", torch.randn(3, dtype=torch.float64)),
        ("f16", torch.randn(4).half()),
        ("bf16", torch.randn(4).bfloat16()),
        ("i64", torch.tensor([-(2 ** 40), 5, 2 ** 62])),
        ("i32", torch.tensor([-7, 2 ** 30], dtype=torch.int32)),
        ("i16", torch.tensor([-300, 300], dtype=torch.int16)),
        ("i8", torch.tensor([-128, 127], dtype=torch.int8)),
        ("u8", torch.tensor([0, 255], dtype=torch.uint8)),
        ("bool", torch.tensor([True, False, True])),
    ])
    torch.save(dtypes, path("dtypes.pt"))
    expect("dtypes.pt", dtypes)

    # Valid safetensors files, from the same tensors.
    write_safetensors(path("weights.safetensors"), sd, metadata={"format": "pt"})
    expect("weights.safetensors", sd)
    write_safetensors(path("dtypes.safetensors"), dtypes)
    expect("dtypes.safetensors", dtypes)

    # A hand-written archive laid out like PyTorch >= 2.1 writes it: a byteorder record,
    # .data/serialization_id, and _rebuild_tensor_v2's optional 7th (metadata) argument.
    storage = FakeStorage("0", 6)
    records = collections.OrderedDict([
        ("data.pkl", pickle_bytes(collections.OrderedDict([
            ("w", FakeTensor(storage, 1, (2, 2), (1, 2), extra_args=({},))),
            ("b", FakeTensor(storage, 0, (6,), (1,))),
        ]))),
        ("byteorder", b"little"),
        ("data/0", floats([0.5, 1.5, 2.5, 3.5, 4.5, 5.5])),
        ("version", b"3\n"),
        (".data/serialization_id", b"1234567890"),
    ])
    write_torch_zip(path("crafted_pytorch2.pt"), records)
    six = torch.tensor([0.5, 1.5, 2.5, 3.5, 4.5, 5.5])
    expect("crafted_pytorch2.pt", collections.OrderedDict(
        [("w", six.as_strided((2, 2), (1, 2), 1)), ("b", six)]))

    torch.save(expected, path("expected.pt"))

    # Files that must be refused.
    torch.save({"w": torch.ones(2), "payload": Exploit()}, path("forbidden_global.pt"))

    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.head.linear.weight.sum().backward()
    optimizer.step()
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3},
               path("training_checkpoint.pt"))

    torch.save(sd, path("legacy_format.pt"), _use_new_zipfile_serialization=False)
    torch.jit.save(torch.jit.script(nn.Linear(2, 2)), path("torchscript.pt"))
    torch.save([torch.ones(2), torch.zeros(3)], path("tensor_list.pt"))
    torch.save({0: torch.ones(2)}, path("int_key.pt"))

    def crafted(name, obj, data, extra=()):
        recs = collections.OrderedDict([("data.pkl", pickle_bytes(obj))])
        recs.update(data)
        recs.update(extra)
        recs["version"] = b"3\n"
        write_torch_zip(path(name), recs)

    six_floats = {"data/0": floats(range(6))}
    crafted("view_out_of_bounds.pt",
            {"w": FakeTensor(FakeStorage("0", 6), 0, (3, 3), (3, 1))}, six_floats)
    crafted("negative_stride.pt",
            {"w": FakeTensor(FakeStorage("0", 6), 5, (6,), (-1,))}, six_floats)
    crafted("record_size_mismatch.pt",
            {"w": FakeTensor(FakeStorage("0", 8), 0, (8,), (1,))}, six_floats)
    crafted("missing_record.pt",
            {"w": FakeTensor(FakeStorage("5", 6), 0, (6,), (1,))}, six_floats)
    crafted("big_endian.pt",
            {"w": FakeTensor(FakeStorage("0", 6), 0, (6,), (1,))}, six_floats,
            extra={"byteorder": b"big"})
    crafted("bad_bool.pt",
            {"w": FakeTensor(FakeStorage("0", 3, torch.BoolStorage), 0, (3,), (1,))},
            {"data/0": b"\x00\x01\x02"})
    crafted("complex_storage.pt",
            {"w": FakeTensor(FakeStorage("0", 3, torch.ComplexFloatStorage), 0, (3,), (1,))},
            {"data/0": bytes(24)})
    ordered = zip_records(path("state_dict_ordered.pt"))
    pkl = ordered["data.pkl"]
    write_torch_zip(path("truncated_pickle.pt"), collections.OrderedDict(
        [("data.pkl", pkl[:len(pkl) // 2])] + [(k, v) for k, v in ordered.items() if k != "data.pkl"]))
    write_torch_zip(path("unsupported_opcode.pt"), collections.OrderedDict(
        [("data.pkl", b"\x80\x02I12\n."), ("version", b"3\n")]))
    write_torch_zip(path("no_data_pkl.pt"), collections.OrderedDict([("version", b"3\n")]))
    # LibTorch 1.13's PyTorchStreamReader leaks when its constructor rejects these.
    tiny = pickle_bytes({"w": FakeTensor(FakeStorage("0", 6), 0, (6,), (1,))})
    write_torch_zip(path("no_version.pt"), collections.OrderedDict(
        [("data.pkl", tiny), ("data/0", floats(range(6)))]))
    write_torch_zip(path("bad_version.pt"), collections.OrderedDict(
        [("data.pkl", tiny), ("data/0", floats(range(6))), ("version", b"abc\n")]))
    write_torch_zip(path("no_top_folder.pt"), collections.OrderedDict(
        [("data.pkl", tiny), ("data/0", floats(range(6))), ("version", b"3\n")]), folder=None)


if __name__ == "__main__":
    main()
