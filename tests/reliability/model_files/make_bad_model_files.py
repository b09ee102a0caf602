"""Bad model files for the start-up refusal test, made from a real PyTorch checkpoint.

    /usr/bin/python3 tests/reliability/model_files/make_bad_model_files.py --out DIR

Writes DIR/<case>/ (a checkpoint and its config, each damaged in one way) and
DIR/cases.json, a list of {"name", "args" (tsserve options), "names" (the file its
message must name), "expect" (a phrase its message must hold), "serves"}. Two control
cases hold the undamaged model (torch.save and safetensors) and must serve: they show
that the checker can tell serving from refusing.

The base model is the tiny PatchTST of tests/bench/make_tiny_model.py, built by the
independent PyTorch reference and saved by torch.save; every bad file is derived from it
by real PyTorch (other dtypes, shapes, keys) or by editing its bytes (truncation, flipped
bytes, absurd sizes), so the damage is the only difference from a file tsserve serves.
"""

import argparse
import collections
import io
import json
import os
import random
import struct
import sys
import zipfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TESTS, "reference"))
sys.path.insert(0, os.path.join(TESTS, "bench"))
import make_checkpoint_files as crafted  # noqa: E402  (safetensors writer, hand-made pickles)
import make_tiny_model  # noqa: E402
import patchtst_reference as ref  # noqa: E402

CONFIG = dict(make_tiny_model.CONFIG)


class CaseWriter:
    def __init__(self, out):
        self.out = out
        self.cases = []

    def folder(self, name):
        path = os.path.join(self.out, name)
        os.makedirs(path, exist_ok=True)
        return path

    def add(self, name, expect, model_bytes=None, config=None, model_name="model.pt",
            names="model", serves=False, extra_args=(), config_text=None, model_path=None):
        """One case: the model file (bytes, or an existing path), its config (a dict, raw
        text, or None for no --model-config), and the phrase the refusal must hold.
        `names` says which file the message must name: "model" or "config"."""
        folder = self.folder(name)
        if model_path is None:
            model_path = os.path.join(folder, model_name)
            if model_bytes is not None:
                with open(model_path, "wb") as f:
                    f.write(model_bytes)
        args = ["--model", model_path]
        config_path = os.path.join(folder, "model.json")
        if config is not None or config_text is not None:
            with open(config_path, "w") as f:
                f.write(config_text if config_text is not None else json.dumps(config, indent=1))
            args += ["--model-config", config_path]
        args += list(extra_args)
        self.cases.append({"name": name, "args": args, "expect": expect, "serves": serves,
                           "names": model_path if names == "model" else config_path})

    def write_manifest(self):
        with open(os.path.join(self.out, "cases.json"), "w") as f:
            json.dump(self.cases, f, indent=1)


# ---------------------------------------------------------------------------- byte surgery


def saved(state_dict):
    """The bytes torch.save writes for `state_dict`."""
    path = os.path.join(_scratch, "saved.pt")
    torch.save(state_dict, path)
    with open(path, "rb") as f:
        return f.read()


def record_data_offset(data, record):
    """Where record `record` (a name below the top folder) starts in a torch.save zip."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = next(i for i in z.infolist() if i.filename.split("/", 1)[1] == record)
    name_len, extra_len = struct.unpack_from("<HH", data, info.header_offset + 26)
    return info.header_offset + 30 + name_len + extra_len, info.file_size


def central_header_offset(data, record):
    """Where the central directory header of `record` starts."""
    position = data.index(b"PK\x01\x02")
    while position >= 0:
        name_len = struct.unpack_from("<H", data, position + 28)[0]
        name = data[position + 46:position + 46 + name_len].decode()
        if name.split("/", 1)[1] == record:
            return position
        position = data.find(b"PK\x01\x02", position + 4)
    raise KeyError(record)


def with_bytes(data, offset, new):
    return data[:offset] + new + data[offset + len(new):]


def flipped(data, offset):
    return with_bytes(data, offset, bytes([data[offset] ^ 0xFF]))


def safetensors_bytes(tensors):
    path = os.path.join(_scratch, "saved.safetensors")
    crafted.write_safetensors(path, tensors)
    with open(path, "rb") as f:
        return f.read()


def safetensors_parts(data):
    """(header dict, header length, data buffer) of a safetensors file."""
    (length,) = struct.unpack_from("<Q", data, 0)
    return json.loads(data[8:8 + length]), length, data[8 + length:]


def safetensors_with_header(header, buffer):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + buffer


def crafted_archive(tensor_entries, storages):
    """A torch.save-layout zip from hand-made pickle objects (see make_checkpoint_files)."""
    records = collections.OrderedDict([("data.pkl", crafted.pickle_bytes(tensor_entries))])
    records.update(storages)
    records["version"] = b"3\n"
    path = os.path.join(_scratch, "crafted.pt")
    crafted.write_torch_zip(path, records)
    with open(path, "rb") as f:
        return f.read()


_scratch = None


# ---------------------------------------------------------------------------- the cases


def main():
    global _scratch
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    out = parser.parse_args().out
    os.makedirs(out, exist_ok=True)
    _scratch = os.path.join(out, ".scratch")
    os.makedirs(_scratch, exist_ok=True)

    torch.manual_seed(0)
    model = ref.PatchTST(CONFIG).eval()
    sd = model.state_dict()
    good = saved(sd)
    good_st = safetensors_bytes(sd)
    w = CaseWriter(out)

    # Controls: the undamaged model in both formats serves.
    w.add("ok_torch_save", None, good, CONFIG, serves=True)
    w.add("ok_safetensors", None, good_st, CONFIG, model_name="model.safetensors", serves=True)

    # Empty, absent, or not a checkpoint at all.
    w.add("empty_file", "the file is empty", b"", CONFIG)
    w.add("missing_file", "cannot open the file", None, CONFIG)
    w.add("directory_not_file", "not a regular file", None, CONFIG, model_path=w.folder("directory_not_file"))
    w.add("json_not_checkpoint", "neither a torch.save zip archive",
          json.dumps(CONFIG).encode(), CONFIG)
    w.add("random_bytes", "neither a torch.save zip archive",
          random.Random(7).randbytes(4096), CONFIG)
    ts_path = os.path.join(_scratch, "script.pt")
    torch.jit.save(torch.jit.script(model.head.linear), ts_path)
    with open(ts_path, "rb") as f:
        w.add("torchscript_archive", "TorchScript archive", f.read(), CONFIG)
    w.add("training_checkpoint", "training checkpoint", saved({"model": sd, "epoch": 3}), CONFIG)
    legacy = os.path.join(_scratch, "legacy.pt")
    torch.save(sd, legacy, _use_new_zipfile_serialization=False)
    with open(legacy, "rb") as f:
        w.add("legacy_torch_format", "legacy (non-zip) torch.save format", f.read(), CONFIG)
    w.add("tensor_list", "not a state_dict", saved(list(sd.values())), CONFIG)

    # Truncated.
    w.add("truncated_zip_half", "truncated or not a zip archive", good[:len(good) // 2], CONFIG)
    w.add("truncated_zip_tail", "truncated or not a zip archive", good[:-10], CONFIG)
    w.add("truncated_safetensors_data", "lie outside the data buffer", good_st[:-100], CONFIG,
          model_name="model.safetensors")
    w.add("truncated_safetensors_header", "more than the 40-byte file holds", good_st[:40], CONFIG,
          model_name="model.safetensors")

    # Corrupt bytes: the zip's CRC-32s catch them in the pickle and in tensor data.
    pkl_at, pkl_size = record_data_offset(good, "data.pkl")
    w.add("corrupt_pickle_byte", "data.pkl' is corrupt",
          flipped(good, pkl_at + pkl_size // 2), CONFIG)
    data_at, data_size = record_data_offset(good, "data/0")
    w.add("corrupt_tensor_bytes", "data/0' is corrupt", flipped(good, data_at + data_size // 2), CONFIG)
    w.add("corrupt_central_directory", "central directory entry 3 is malformed",
          with_bytes(good, central_header_offset(good, "data/10"), b"PK\x09\x09"), CONFIG)
    header_text_at = good_st.index(b'"dtype"')
    w.add("corrupt_safetensors_json", "not valid JSON", with_bytes(good_st, header_text_at, b"{"), CONFIG,
          model_name="model.safetensors")
    # safetensors has no checksum: a flipped exponent turns a weight into NaN, which a
    # diverged training run also saves; neither may be served.
    header, length, buffer = safetensors_parts(good_st)
    begin = header["head.linear.weight"]["data_offsets"][0] + 4 * 5
    w.add("nan_weight_safetensors", "non-finite",
          good_st[:8 + length] + with_bytes(buffer, begin, struct.pack("<f", float("nan"))), CONFIG,
          model_name="model.safetensors")
    diverged = collections.OrderedDict(sd)
    diverged["encoder.attn_layers.0.conv1.weight"] = sd["encoder.attn_layers.0.conv1.weight"].clone()
    diverged["encoder.attn_layers.0.conv1.weight"][3, 2, 0] = float("inf")
    w.add("inf_weight_torch_save", "non-finite", saved(diverged), CONFIG)

    # Wrong shapes, dtypes, keys.
    def changed(key, tensor):
        state = collections.OrderedDict(sd)
        state[key] = tensor
        return saved(state)

    w.add("wrong_shape_head", "key 'head.linear.weight' has shape [4, 23]",
          changed("head.linear.weight", torch.zeros(4, 23)), CONFIG)
    w.add("wrong_shape_position_table", "key 'patch_embedding.position_embedding.pe' has shape [1, 20, 8]",
          changed("patch_embedding.position_embedding.pe", sd["patch_embedding.position_embedding.pe"][:, :20]),
          CONFIG)
    header, length, buffer = safetensors_parts(good_st)
    header["head.linear.bias"]["shape"] = [5]
    w.add("safetensors_shape_contradicts_offsets", "do not match shape [5]",
          safetensors_with_header(header, buffer), CONFIG, model_name="model.safetensors")
    w.add("float64_checkpoint", "has dtype Double but the model expects Float",
          saved(collections.OrderedDict((k, v.double() if v.is_floating_point() else v) for k, v in sd.items())),
          CONFIG)
    w.add("int_weight", "has dtype Int but the model expects Float",
          changed("encoder.attn_layers.0.norm1.weight", torch.ones(8, dtype=torch.int32)), CONFIG)
    w.add("float16_weight", "has dtype Half but the model expects Float",
          changed("head.linear.bias", sd["head.linear.bias"].half()), CONFIG)
    missing = collections.OrderedDict((k, v) for k, v in sd.items() if k != "encoder.attn_layers.0.conv1.bias")
    w.add("missing_key", "missing key 'encoder.attn_layers.0.conv1.bias'", saved(missing), CONFIG)
    extra = collections.OrderedDict(sd)
    extra["decoder.weight"] = torch.ones(3)
    w.add("extra_key", "unexpected key 'decoder.weight'", saved(extra), CONFIG)
    no_norm = collections.OrderedDict((k, v) for k, v in sd.items() if not k.startswith("encoder.norm."))
    w.add("no_final_norm", "no final norm found", saved(no_norm), CONFIG)

    # Absurd sizes and counts: refused from the header, before any allocation they claim.
    w.add("safetensors_header_length_2_60", "give 1152921504606846976, more than",
          struct.pack("<Q", 1 << 60) + good_st[8:], CONFIG, model_name="model.safetensors")
    header, length, buffer = safetensors_parts(good_st)
    header["head.linear.bias"]["shape"] = [1 << 40, 1 << 40]
    w.add("safetensors_shape_2_80", "shape too large to address",
          safetensors_with_header(header, buffer), CONFIG, model_name="model.safetensors")
    entry = central_header_offset(good, "data/1")
    w.add("zip_entry_claims_2_gib", "declares 2147483647 bytes",
          with_bytes(good, entry + 24, struct.pack("<I", 0x7FFFFFFF)), CONFIG)
    zip64 = good.rindex(b"PK\x06\x06")
    w.add("zip64_claims_2_60_entries", "the directory claims 1152921504606846976 entries",
          with_bytes(good, zip64 + 32, struct.pack("<Q", 1 << 60)), CONFIG)
    w.add("zip64_directory_past_end", "lies outside the file",
          with_bytes(good, zip64 + 48, struct.pack("<Q", 1 << 50)), CONFIG)
    w.add("pickle_claims_2_60_floats", "needs",
          crafted_archive({"w": crafted.FakeTensor(crafted.FakeStorage("0", 1 << 60), 0, (4,), (1,))},
                          {"data/0": crafted.floats(range(4))}), CONFIG)
    w.add("pickle_view_past_storage", "reads element",
          crafted_archive({"w": crafted.FakeTensor(crafted.FakeStorage("0", 4), 0, (1 << 40,), (1,))},
                          {"data/0": crafted.floats(range(4))}), CONFIG)

    # Configs that contradict the weights or themselves (the checkpoint is the good one).
    def config_with(**changes):
        c = dict(CONFIG)
        for key, value in changes.items():
            if value is None:
                c.pop(key)
            else:
                c[key] = value
        return c

    def bad_config(name, expect, names="config", **changes):
        w.add(name, expect, good, config_with(**changes), names=names)

    bad_config("config_d_model_16", "d_model=16", d_model=16, n_heads=2)
    bad_config("config_n_heads_not_dividing", "'d_model' (8) must be a multiple of 'n_heads' (3)", n_heads=3)
    bad_config("config_patch_len_past_series", "'patch_len' (64) must be at most", patch_len=64)
    bad_config("config_unknown_attention", "'attention' must be one of \"full\", \"prob\"", attention="sparse")
    bad_config("config_negative_d_ff", "'d_ff' must be positive, got -16", d_ff=-16)
    bad_config("config_negative_seq_len", "'seq_len' must be positive", seq_len=-16)
    bad_config("config_more_layers", "e_layers=2", e_layers=2)
    bad_config("config_pred_len_8", "pred_len=8", pred_len=8)
    bad_config("config_seq_len_32", "seq_len=32", seq_len=32)
    bad_config("config_d_model_2_40", "'d_model' must be at most", d_model=1 << 40, n_heads=1)
    bad_config("config_seq_len_2_62", "'seq_len' must be at most", seq_len=1 << 62)
    bad_config("config_d_model_1e6", "d_model=1000000", d_model=1000000, n_heads=1)
    bad_config("config_d_ff_1e8", "d_ff=100000000", d_ff=100000000)
    bad_config("config_e_layers_1e6", "e_layers=1000000", e_layers=1000000)
    bad_config("config_too_many_patches", "patches", seq_len=80000)
    bad_config("config_norm_contradicts_keys", "the config says norm \"layer\"", norm="layer")
    bad_config("config_missing_d_model", "'d_model' is required", d_model=None)
    bad_config("config_stride_string", "'stride' must be an integer, got \"8\"", stride="8")
    bad_config("config_d_model_fraction", "'d_model' must be an integer, got 8.5", d_model=8.5)
    bad_config("config_scaler_zero_std", "'scaler' std values must be positive",
               scaler={"columns": ["a"], "mean": [0.0], "std": [0.0]})
    w.add("config_not_json", "not valid JSON", good, config_text="{\"seq_len\": 16,", names="config")
    w.add("config_empty", "not valid JSON", good, config_text="", names="config")
    w.add("config_array", "must be a JSON object", good, config_text="[16, 4]", names="config")
    # No --model-config and no model.json beside the checkpoint.
    w.add("config_absent", "cannot be opened", good, None)
    w.cases[-1]["names"] = os.path.join(w.folder("config_absent"), "model.json")
    w.add("flag_unknown_attention", "attention", good, CONFIG, names="none",
          extra_args=["--attention", "sparse"])
    w.cases[-1]["names"] = "--attention"

    w.write_manifest()
    print("%d cases in %s" % (len(w.cases), os.path.join(out, "cases.json")))


if __name__ == "__main__":
    main()
