#pragma once
// Readers for the two checkpoint file formats tsserve accepts. They return the tensors
// as stored (names unchanged, CPU, the file's dtype); matching them to a model is the
// job of state_dict_loading.h and each family's loader (patchtst_checkpoint.h, ...).
//
// Every failure throws ModelError with a message that names the file and what was wrong
// (truncated, corrupt, unsupported pickle opcode, tensor data out of range, ...).

#include <string>

#include "tsserve/model/state_dict.h"

namespace tsserve::model {

// A file written by torch.save (the zip format, PyTorch >= 1.6) holding a state_dict:
// the OrderedDict that `torch.save(model.state_dict(), path)` writes (its `_metadata`
// attribute is accepted and ignored) or a plain dict of tensors.
StateDict read_torch_state_dict(const std::string& path);

// A safetensors file (8-byte little-endian header length, JSON header, raw data).
StateDict read_safetensors(const std::string& path);

// Chooses the reader by the file's first bytes (zip magic "PK\x03\x04" -> torch.save,
// otherwise safetensors).
StateDict read_checkpoint_file(const std::string& path);

}  // namespace tsserve::model
