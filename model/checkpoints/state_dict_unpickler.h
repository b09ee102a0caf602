#pragma once
// A restricted unpickler for the pickles torch.save writes for a state_dict.
//
// It runs only the opcodes such a pickle uses (protocol 2, plus the protocol 4 framing,
// short-string and memoize opcodes) and resolves only the globals a state_dict needs:
// collections.OrderedDict, torch._utils._rebuild_tensor_v2,
// torch._utils._rebuild_parameter and the typed storage classes (torch.FloatStorage,
// ...). Any other global is refused by name, so a checkpoint cannot run code.
//
// LibTorch's own torch::pickle_load cannot be used: in 1.13 it fails on the BUILD that
// sets the OrderedDict's `_metadata` attribute in every `model.state_dict()` pickle.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "pickle_value.h"

namespace tsserve::model::detail {

// Resolves a persistent id (opcode BINPERSID). torch.save keeps tensor data outside the
// pickle and refers to it by the tuple ('storage', storage_type, key, location, numel).
// Returns an object made in the same arena; throws CheckpointFormatError on a bad id.
using PersistentLoader = std::function<PickleObject*(const PickleObject& persistent_id)>;

// Runs the pickle in [data, data + size) and returns the object left by STOP.
// `source_name` (e.g. "data.pkl") starts every error message.
// _rebuild_tensor_v2 yields kTensor objects whose geometry is not yet checked against
// their storage (see tensor_view_copy.h). Throws CheckpointFormatError naming the byte
// offset and the problem; never reads outside the buffer.
PickleObject* unpickle_state_dict(const std::string& source_name, const uint8_t* data, size_t size,
                                  PickleArena& arena, const PersistentLoader& load_persistent);

}  // namespace tsserve::model::detail
