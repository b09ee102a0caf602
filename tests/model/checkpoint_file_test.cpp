// Tests for the checkpoint file readers (tsserve/model/checkpoint_file.h).
//
// The files come from tests/reference/make_checkpoint_files.py (real torch.save output,
// hand-written safetensors, hand-crafted malformed archives); the expected tensors are
// read from expected.pt with LibTorch's own torch::pickle_load, an independent loader.
// Other malformed inputs are built here, and three deterministic mutation loops check
// that no input makes a reader do anything but return or throw ModelError.

#include "tsserve/model/checkpoint_file.h"

#include <caffe2/serialize/inline_container.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/serialization/pickle.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

using Bytes = std::string;

std::string fixture(const std::string& name) {
  return std::string(TSSERVE_FIXTURE_DIR) + "/checkpoints/" + name;
}

Bytes read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << path
                         << " (run tests/reference/make_checkpoint_files.py)";
  return Bytes(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Removes the files write_temp made when the test program exits.
struct TempFiles {
  ~TempFiles() {
    for (const std::string& path : paths) std::remove(path.c_str());
  }
  std::set<std::string> paths;
};

// Named by process id: other build trees may run this test at the same time.
std::string write_temp(const std::string& name, const Bytes& bytes) {
  static TempFiles temp_files;
  const std::string path =
      ::testing::TempDir() + "tsserve_checkpoint_test_" + std::to_string(::getpid()) + "_" + name;
  temp_files.paths.insert(path);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// expected.pt: {"<file>|<tensor name>": tensor}, in the order the files list them.
const StateDict& all_expected() {
  static const StateDict expected = [] {
    const Bytes bytes = read_bytes(fixture("expected.pt"));
    const c10::IValue value =
        torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
    StateDict out;
    for (const auto& entry : value.toGenericDict()) {
      out.emplace_back(entry.key().toStringRef(), entry.value().toTensor());
    }
    return out;
  }();
  return expected;
}

StateDict expected_for(const std::string& file) {
  StateDict out;
  const std::string prefix = file + "|";
  for (const auto& [key, tensor] : all_expected()) {
    if (key.compare(0, prefix.size(), prefix) == 0)
      out.emplace_back(key.substr(prefix.size()), tensor);
  }
  EXPECT_FALSE(out.empty()) << "expected.pt has no tensors for " << file;
  return out;
}

void expect_same_state_dict(const StateDict& actual, const StateDict& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const auto& [name, tensor] = actual[i];
    SCOPED_TRACE("tensor " + name);
    EXPECT_EQ(name, expected[i].first);
    EXPECT_EQ(tensor.scalar_type(), expected[i].second.scalar_type());
    EXPECT_EQ(tensor.sizes(), expected[i].second.sizes());
    EXPECT_TRUE(tensor.is_contiguous());
    EXPECT_TRUE(tensor.device().is_cpu());
    EXPECT_TRUE(tensor.equal(expected[i].second)) << tensor << "\nexpected\n" << expected[i].second;
  }
}

template <typename Read>
void expect_model_error(Read read, const std::string& path,
                        std::initializer_list<std::string> fragments) {
  try {
    read(path);
    ADD_FAILURE() << "no error for " << path;
  } catch (const ModelError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("checkpoint " + path + ": "), std::string::npos) << message;
    for (const std::string& fragment : fragments) {
      EXPECT_NE(message.find(fragment), std::string::npos)
          << "message lacks \"" << fragment << "\":\n"
          << message;
    }
  }
}

void expect_torch_error(const std::string& name, std::initializer_list<std::string> fragments) {
  SCOPED_TRACE(name);
  expect_model_error(read_torch_state_dict, fixture(name), fragments);
  expect_model_error(read_checkpoint_file, fixture(name), fragments);
}

// --- valid files -------------------------------------------------------------------------

TEST(CheckpointFileTorch, ReadsModelStateDictOrderedDict) {
  const StateDict sd = read_torch_state_dict(fixture("state_dict_ordered.pt"));
  expect_same_state_dict(sd, expected_for("state_dict_ordered.pt"));
  EXPECT_EQ(sd.front().first, "patch_embedding.value_embedding.weight");
  bool found = false;
  for (const auto& [name, tensor] : sd) {
    if (name != "encoder.norm.1.num_batches_tracked") continue;
    found = true;
    EXPECT_EQ(tensor.scalar_type(), at::kLong);
    EXPECT_EQ(tensor.dim(), 0);
    EXPECT_EQ(tensor.item<int64_t>(), 7);
  }
  EXPECT_TRUE(found);
}

TEST(CheckpointFileTorch, ReadsPlainDict) {
  expect_same_state_dict(read_torch_state_dict(fixture("state_dict_plain.pt")),
                         expected_for("state_dict_plain.pt"));
}

TEST(CheckpointFileTorch, KeepsDataParallelModulePrefix) {
  const StateDict sd = read_torch_state_dict(fixture("state_dict_module_prefix.pt"));
  expect_same_state_dict(sd, expected_for("state_dict_module_prefix.pt"));
  EXPECT_EQ(sd.front().first, "module.patch_embedding.value_embedding.weight");
}

TEST(CheckpointFileTorch, ReadsFloat64) {
  const StateDict sd = read_torch_state_dict(fixture("state_dict_float64.pt"));
  expect_same_state_dict(sd, expected_for("state_dict_float64.pt"));
  EXPECT_EQ(sd.front().second.scalar_type(), at::kDouble);
}

TEST(CheckpointFileTorch, CopiesViewsOutOfTheirSharedStorage) {
  const StateDict sd = read_torch_state_dict(fixture("views.pt"));
  expect_same_state_dict(sd, expected_for("views.pt"));
  // Every tensor is an independent copy, not a view into a shared buffer.
  for (size_t i = 0; i < sd.size(); ++i) {
    for (size_t j = i + 1; j < sd.size(); ++j) {
      if (sd[i].second.numel() == 0 || sd[j].second.numel() == 0) continue;
      EXPECT_NE(sd[i].second.data_ptr(), sd[j].second.data_ptr()) << sd[i].first << sd[j].first;
    }
  }
}

TEST(CheckpointFileTorch, ReadsEveryStorageDtype) {
  expect_same_state_dict(read_torch_state_dict(fixture("dtypes.pt")), expected_for("dtypes.pt"));
}

TEST(CheckpointFileTorch, ReadsPyTorch2Layout) {
  expect_same_state_dict(read_torch_state_dict(fixture("crafted_pytorch2.pt")),
                         expected_for("crafted_pytorch2.pt"));
}

TEST(CheckpointFileSafetensors, ReadsWeightsInHeaderOrder) {
  expect_same_state_dict(read_safetensors(fixture("weights.safetensors")),
                         expected_for("weights.safetensors"));
}

TEST(CheckpointFileSafetensors, ReadsEveryDtype) {
  expect_same_state_dict(read_safetensors(fixture("dtypes.safetensors")),
                         expected_for("dtypes.safetensors"));
}

TEST(CheckpointFileDispatch, PicksTheReaderByMagic) {
  expect_same_state_dict(read_checkpoint_file(fixture("state_dict_ordered.pt")),
                         expected_for("state_dict_ordered.pt"));
  expect_same_state_dict(read_checkpoint_file(fixture("weights.safetensors")),
                         expected_for("weights.safetensors"));
}

// --- torch.save files that must be refused ---------------------------------------------

TEST(CheckpointFileTorchErrors, MissingAndEmptyFiles) {
  const std::string missing = ::testing::TempDir() + "tsserve_no_such_checkpoint.pt";
  expect_model_error(read_torch_state_dict, missing, {"cannot open the file"});
  expect_model_error(read_safetensors, missing, {"cannot open the file"});
  expect_model_error(read_checkpoint_file, missing, {"cannot open the file"});
  expect_model_error(read_checkpoint_file, ::testing::TempDir(), {"not a regular file"});
  const std::string empty = write_temp("empty.pt", "");
  expect_model_error(read_torch_state_dict, empty, {"the file is empty"});
  expect_model_error(read_safetensors, empty, {"the file is empty"});
  expect_model_error(read_checkpoint_file, empty, {"the file is empty"});
}

TEST(CheckpointFileTorchErrors, TruncatedZip) {
  const Bytes full = read_bytes(fixture("state_dict_ordered.pt"));
  const std::string path = write_temp("truncated.pt", full.substr(0, full.size() / 2));
  expect_model_error(read_torch_state_dict, path, {"truncated or not a zip archive"});
  expect_model_error(read_checkpoint_file, path, {"truncated or not a zip archive"});
}

uint16_t le16(const Bytes& bytes, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(bytes[at]) | static_cast<uint8_t>(bytes[at + 1])
                                                                     << 8);
}

bool ends_with(const Bytes& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Offset of the zip header with `signature` whose file name ends with "/<record>".
// Central directory headers keep the name at +46 (length at +28), local ones at +30 (+26).
size_t find_zip_header(const Bytes& zip, const std::string& record, bool central) {
  const std::string signature = central ? "PK\x01\x02" : "PK\x03\x04";
  const size_t name_at = central ? 46 : 30;
  const size_t length_at = central ? 28 : 26;
  for (size_t at = zip.find(signature); at != Bytes::npos; at = zip.find(signature, at + 4)) {
    if (at + name_at > zip.size()) break;
    if (ends_with(zip.substr(at + name_at, le16(zip, at + length_at)), "/" + record)) return at;
  }
  ADD_FAILURE() << "no zip header for " << record;
  return 0;
}

// Where a stored record's bytes start: after the 30-byte local header, name and extra.
size_t record_data_offset(const Bytes& zip, const std::string& record) {
  const size_t header = find_zip_header(zip, record, /*central=*/false);
  return header + 30 + le16(zip, header + 26) + le16(zip, header + 28);
}

TEST(CheckpointFileTorchErrors, CorruptRecordBytesFailTheCrcCheck) {
  // LibTorch's miniz skips CRC checks; without ours a flipped byte in a key name or a
  // weight would load silently.
  for (const char* record : {"data.pkl", "data/0"}) {
    Bytes bytes = read_bytes(fixture("views.pt"));
    const size_t data = record_data_offset(bytes, record);
    bytes[data + 20] = static_cast<char>(bytes[data + 20] ^ 0x01);
    const std::string path = write_temp("corrupt_record.pt", bytes);
    expect_model_error(read_torch_state_dict, path,
                       {"record '" + std::string(record) + "' is corrupt", "CRC-32"});
  }
}

TEST(CheckpointFileTorch, AcceptsRecordsWrittenWithoutCrc) {
  // torch.serialization.set_crc32_options(False) (PyTorch >= 2.3) leaves CRC fields 0.
  Bytes bytes = read_bytes(fixture("views.pt"));
  for (const char* record :
       {"data.pkl", "data/0", "data/1", "data/2", "data/3", "data/4", "version"}) {
    const size_t central = find_zip_header(bytes, record, /*central=*/true);
    const size_t local = find_zip_header(bytes, record, /*central=*/false);
    bytes.replace(central + 16, 4, 4, '\0');
    bytes.replace(local + 14, 4, 4, '\0');
  }
  expect_same_state_dict(read_torch_state_dict(write_temp("no_crc.pt", bytes)),
                         expected_for("views.pt"));
}

TEST(CheckpointFileTorchErrors, DirectoryDeclaringAHugeRecordIsRefusedBeforeAllocation) {
  // PyTorchStreamReader would allocate the declared size before inflating the record.
  Bytes bytes = read_bytes(fixture("state_dict_ordered.pt"));
  const size_t entry = find_zip_header(bytes, "data.pkl", /*central=*/true);
  bytes[entry + 10] = 8;                                  // compression method: deflate
  const char huge[4] = {'\xf0', '\xff', '\xff', '\x7f'};  // 2147483632 bytes uncompressed
  bytes.replace(entry + 24, 4, huge, 4);
  const std::string path = write_temp("huge_record.pt", bytes);
  expect_model_error(read_torch_state_dict, path,
                     {"truncated or not a zip archive", "data.pkl' declares 2147483632 bytes"});
}

TEST(CheckpointFileTorchErrors, RandomBytes) {
  std::mt19937 rng(7);
  Bytes bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xff);
  bytes[0] = 'x';
  const std::string path = write_temp("random.bin", bytes);
  expect_model_error(read_checkpoint_file, path,
                     {"neither a torch.save zip archive", "nor a safetensors file"});
  expect_model_error(read_torch_state_dict, path, {"truncated or not a zip archive"});
}

TEST(CheckpointFileTorchErrors, ForbiddenGlobal) {
  expect_torch_error("forbidden_global.pt",
                     {"data.pkl byte", "global 'posix.system'", "not loaded"});
}

TEST(CheckpointFileTorchErrors, TrainingCheckpointNamesItsKeys) {
  expect_torch_error("training_checkpoint.pt",
                     {"expected a state_dict", "entry 'model' is an OrderedDict with 41 entries",
                      "top-level keys are 'model', 'optimizer', 'epoch'",
                      "torch.save(checkpoint['model'], path)"});
}

TEST(CheckpointFileTorchErrors, OtherFormatsAndShapes) {
  expect_torch_error("legacy_format.pt", {"legacy (non-zip) torch.save format"});
  expect_torch_error("torchscript.pt", {"TorchScript archive"});
  expect_torch_error("tensor_list.pt", {"data.pkl holds a list of 2 items, not a state_dict"});
  expect_torch_error("int_key.pt", {"a key that is an int 0"});
  expect_torch_error("no_data_pkl.pt", {"no data.pkl record"});
}

// PyTorchStreamReader's constructor would reject these too, but leak miniz's state.
TEST(CheckpointFileTorchErrors, ArchiveLayout) {
  expect_torch_error("no_version.pt", {"no version record"});
  expect_torch_error("bad_version.pt",
                     {"record 'version' holds 'abc\\x0a', not a file format version"});
  expect_torch_error("no_top_folder.pt", {"first entry is not inside a top folder"});
}

TEST(CheckpointFileTorchErrors, DirectoryEntriesAreNotRead) {
  // miniz "extracts" an entry flagged as a directory by leaving the buffer uninitialised.
  Bytes bytes = read_bytes(fixture("views.pt"));
  const size_t entry = find_zip_header(bytes, "data/0", /*central=*/true);
  bytes[entry + 38] = 0x10;  // external attributes: MS-DOS directory
  expect_model_error(read_torch_state_dict, write_temp("directory_record.pt", bytes),
                     {"record 'views/data/0' is marked as a directory"});
}

TEST(CheckpointFileTorchErrors, BadTensorGeometry) {
  expect_torch_error("view_out_of_bounds.pt",
                     {"tensor 'w' (size [3, 3], stride [3, 1], offset 0)", "reads element 8",
                      "FloatStorage '0', which has 6 elements"});
  expect_torch_error("negative_stride.pt", {"tensor 'w'", "negative stride"});
}

TEST(CheckpointFileTorchErrors, BadStorages) {
  expect_torch_error(
      "record_size_mismatch.pt",
      {"record 'data/0' holds 24 bytes", "FloatStorage of 8 elements x 4 bytes", "needs 32 bytes"});
  expect_torch_error("missing_record.pt", {"record 'data/5'", "missing"});
  expect_torch_error("big_endian.pt", {"byteorder 'big'", "only 'little'"});
  expect_torch_error("bad_bool.pt", {"BoolStorage", "byte 2 at element 2"});
  expect_torch_error("complex_storage.pt", {"global 'torch.ComplexFloatStorage'"});
}

TEST(CheckpointFileTorchErrors, BadPickles) {
  expect_torch_error("truncated_pickle.pt", {"data.pkl byte", "truncated"});
  expect_torch_error("unsupported_opcode.pt",
                     {"data.pkl byte 2", "unsupported pickle opcode 0x49 'I'"});
}

// --- safetensors files that must be refused --------------------------------------------

Bytes safetensors(const std::string& header, const Bytes& data) {
  Bytes out(8, '\0');
  const uint64_t size = header.size();
  for (size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((size >> (8 * i)) & 0xff);
  return out + header + data;
}

void expect_safetensors_error(const std::string& name, const Bytes& bytes,
                              std::initializer_list<std::string> fragments) {
  SCOPED_TRACE(name);
  expect_model_error(read_safetensors, write_temp(name, bytes), fragments);
}

TEST(CheckpointFileSafetensorsErrors, Header) {
  expect_safetensors_error("short.safetensors", Bytes("\x05\0\0", 3),
                           {"the file has 3 bytes, fewer than the 8-byte"});
  expect_safetensors_error("huge_length.safetensors", Bytes(8, '\xff') + "{}",
                           {"header length 18446744073709551615 exceeds the limit"});
  Bytes past_end = safetensors("{}", "");
  past_end[1] = 1;  // 258 bytes of header, 2 present
  expect_safetensors_error("past_end.safetensors", past_end,
                           {"header length 258 runs past the end of the file (10 bytes)"});
  expect_safetensors_error("bad_json.safetensors", safetensors("{\"w\": {\"dtype\": ", ""),
                           {"not valid JSON", "parse error"});
  expect_safetensors_error("not_object.safetensors", safetensors("[1, 2]", ""),
                           {"header is a JSON array, not an object"});
}

TEST(CheckpointFileSafetensorsErrors, Entries) {
  const Bytes data(16, '\0');
  expect_safetensors_error(
      "unknown_dtype.safetensors",
      safetensors(R"({"w": {"dtype": "F8_E4M3", "shape": [4], "data_offsets": [0, 4]}})", data),
      {"tensor 'w' has dtype 'F8_E4M3'", "supported: F64, F32"});
  expect_safetensors_error(
      "out_of_range.safetensors",
      safetensors(R"({"w": {"dtype": "F32", "shape": [25], "data_offsets": [0, 100]}})", data),
      {"tensor 'w' data_offsets [0, 100] lie outside the data buffer of 16 bytes"});
  expect_safetensors_error(
      "shape_mismatch.safetensors",
      safetensors(
          R"({"head.linear.weight": {"dtype": "F32", "shape": [96, 192], "data_offsets": [0, 16]}})",
          data),
      {"tensor 'head.linear.weight' data_offsets [0, 16] do not match shape [96, 192] x 4 "
       "bytes = 73728 bytes"});
  expect_safetensors_error(
      "negative_dim.safetensors",
      safetensors(R"({"w": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}})", data),
      {"tensor 'w': \"shape\" holds -1, not a non-negative integer"});
  expect_safetensors_error(
      "reversed_offsets.safetensors",
      safetensors(R"({"w": {"dtype": "U8", "shape": [0], "data_offsets": [8, 4]}})", data),
      {"data_offsets [8, 4] lie outside"});
  expect_safetensors_error("no_shape.safetensors",
                           safetensors(R"({"w": {"dtype": "F32", "data_offsets": [0, 4]}})", data),
                           {"tensor 'w' has no \"shape\" array"});
  expect_safetensors_error("entry_not_object.safetensors", safetensors(R"({"w": 3})", data),
                           {"tensor 'w': its header entry is a JSON number"});
  expect_safetensors_error(
      "overflow.safetensors",
      safetensors(
          R"({"w": {"dtype": "F64", "shape": [4294967296, 4294967296], "data_offsets": [0, 0]}})",
          data),
      {"tensor 'w' has a shape too large"});
  expect_safetensors_error(
      "bad_bool.safetensors",
      safetensors(R"({"b": {"dtype": "BOOL", "shape": [2], "data_offsets": [0, 2]}})", "\x01\x07"),
      {"tensor 'b' (BOOL) holds byte 7 at element 1"});
}

TEST(CheckpointFileSafetensorsErrors, DeepNestingIsRefusedBeforeParsingWithoutACrash) {
  // A "shape" whose one dimension is an array nested 100,000 deep: the error path used to
  // dump() it recursively and overflow the stack (the repository poller then crash-looped).
  const std::string deep(100'000, '[');
  const std::string header = R"({"w": {"dtype": "F32", "shape": [)" + deep +
                             std::string(100'000, ']') + R"(], "data_offsets": [0, 4]}})";
  const std::string path = write_temp("deep.safetensors", safetensors(header, Bytes(4, '\0')));
  for (const auto& read : {read_safetensors, read_checkpoint_file}) {
    expect_model_error(read, path, {"nests arrays and objects more than 64 deep"});
  }
  // Unbalanced, in "__metadata__" too: refused at the 65th level, not parsed.
  expect_safetensors_error("deep_metadata.safetensors",
                           safetensors(R"({"__metadata__": )" + deep, ""), {"more than 64 deep"});
  // Brackets inside strings are text, not nesting; 64 levels in all (the header's object,
  // the entry's, 62 arrays) are still read.
  std::string nested_64 = "1";
  for (int i = 0; i < 62; ++i) nested_64 = "[" + nested_64 + "]";
  expect_safetensors_error(
      "deep_but_allowed.safetensors",
      safetensors(R"({"w[[[[": {"dtype": "F32", "shape": )" + nested_64 +
                      R"(, "data_offsets": [0, 4]}, "__metadata__": {"\"[[[[": "]]]]"}})",
                  Bytes(4, '\0')),
      {"\"shape\" holds [[[[", "not a non-negative integer"});
}

TEST(CheckpointFileSafetensorsErrors, NamesFromTheFileAreEscapedInMessages) {
  expect_safetensors_error(
      "escaped_name.safetensors",
      safetensors(
          "{\"a\\u0001\\nb\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 8]}}",
          Bytes(8, '\0')),
      {"tensor 'a\\x01\\x0ab' data_offsets [0, 8] do not match shape [1] x 4 bytes = 4 bytes"});
}

TEST(CheckpointFileSafetensorsErrors, MetadataIsIgnoredAndEmptyTensorsAreFine) {
  const std::string path = write_temp(
      "metadata.safetensors",
      safetensors(R"({"__metadata__": {"format": "pt"}, "e": {"dtype": "I64", "shape": [0, 3],)"
                  R"( "data_offsets": [0, 0]}, "s": {"dtype": "I16", "shape": [],)"
                  R"( "data_offsets": [0, 2]}})",
                  "\x05\x01"));
  const StateDict sd = read_safetensors(path);
  ASSERT_EQ(sd.size(), 2u);
  EXPECT_EQ(sd[0].first, "e");
  EXPECT_EQ(sd[0].second.sizes(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(sd[1].first, "s");
  EXPECT_EQ(sd[1].second.dim(), 0);
  EXPECT_EQ(sd[1].second.item<int16_t>(), 0x0105);
}

// --- robustness: mutated inputs only ever produce ModelError ----------------------------

template <typename Read>
int run_and_count_successes(Read read, const std::string& path) {
  try {
    read(path);
    return 1;
  } catch (const ModelError&) {
    return 0;
  }
  // Any other exception escapes and fails the test.
}

Bytes mutate(const Bytes& original, std::mt19937& rng, const std::vector<char>& interesting) {
  Bytes bytes = original;
  const int kind = static_cast<int>(rng() % 5);
  const int count = 1 + static_cast<int>(rng() % 4);
  for (int i = 0; i < count && !bytes.empty(); ++i) {
    const size_t at = rng() % bytes.size();
    switch (kind) {
      case 0:
        bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8)));
        break;
      case 1:
        bytes[at] = interesting[rng() % interesting.size()];
        break;
      case 2:
        bytes.erase(at, 1 + rng() % 8);
        break;
      case 3:
        bytes.insert(at, 1, interesting[rng() % interesting.size()]);
        break;
      default:
        bytes.resize(at);
        break;
    }
  }
  return bytes;
}

// Every pickle opcode torch.save uses, and some it does not, plus boundary values.
const std::vector<char> kInterestingBytes = {
    '\x80', '\x95', '.',    '(',    '0',    '1',    '}',    ']', ')', 't', '\x85', '\x86', '\x87',
    'a',    'e',    's',    'u',    'X',    '\x8c', '\x8d', 'J', 'K', 'M', '\x8a', 'G',    'N',
    '\x88', '\x89', 'c',    '\x93', 'R',    'b',    '\x81', 'q', 'r', 'h', 'j',    '\x94', 'Q',
    'I',    'L',    '\x00', '\x01', '\x7f', '\xff', '\n',   '{', '"', '[', ':',    '-',    '9'};

TEST(CheckpointFileRobustness, MutatedTorchFilesOnlyThrowModelError) {
  std::mt19937 rng(2024);
  int successes = 0;
  for (const char* name : {"views.pt", "state_dict_ordered.pt"}) {
    const Bytes original = read_bytes(fixture(name));
    for (int i = 0; i < 150; ++i) {
      const std::string path = write_temp("mutated.pt", mutate(original, rng, kInterestingBytes));
      successes += run_and_count_successes(read_checkpoint_file, path);
    }
  }
  RecordProperty("successes", successes);
}

// The records of a torch.save archive, with data.pkl mutated and re-zipped with a valid
// CRC, so the mutations reach the unpickler instead of failing the zip checks.
TEST(CheckpointFileRobustness, MutatedPicklesOnlyThrowModelError) {
  for (const char* name : {"views.pt", "state_dict_ordered.pt", "dtypes.pt"}) {
    caffe2::serialize::PyTorchStreamReader reader(fixture(name));
    std::vector<std::pair<std::string, Bytes>> records;
    for (const std::string& record : reader.getAllRecords()) {
      if (record == "version") continue;  // the writer adds it
      auto [data, size] = reader.getRecord(record);
      records.emplace_back(record, Bytes(static_cast<const char*>(data.get()), size));
    }
    std::mt19937 rng(99);
    int successes = 0;
    for (int i = 0; i < 400; ++i) {
      Bytes zip;
      {
        caffe2::serialize::PyTorchStreamWriter writer([&zip](const void* data, size_t size) {
          zip.append(static_cast<const char*>(data), size);
          return size;
        });
        for (const auto& [record, bytes] : records) {
          const Bytes content =
              record == "data.pkl" ? mutate(bytes, rng, kInterestingBytes) : bytes;
          writer.writeRecord(record, content.data(), content.size());
        }
        writer.writeEndOfFile();
      }
      successes += run_and_count_successes(read_torch_state_dict, write_temp("repickled.pt", zip));
    }
    // Some mutations leave a valid state_dict (a changed key or value), most do not.
    EXPECT_LT(successes, 400) << name;
  }
}

TEST(CheckpointFileRobustness, MutatedSafetensorsOnlyThrowModelError) {
  std::mt19937 rng(5);
  const Bytes original = read_bytes(fixture("dtypes.safetensors"));
  for (int i = 0; i < 400; ++i) {
    Bytes bytes = original;
    if (i % 4 == 0) {
      // Mutate only the JSON header, keeping its length field consistent.
      uint64_t header_size = 0;
      for (size_t b = 0; b < 8; ++b)
        header_size |= uint64_t{static_cast<uint8_t>(bytes[b])} << (8 * b);
      const Bytes header = mutate(bytes.substr(8, header_size), rng, kInterestingBytes);
      bytes = safetensors(header, bytes.substr(8 + header_size));
    } else {
      bytes = mutate(bytes, rng, kInterestingBytes);
    }
    run_and_count_successes(read_checkpoint_file, write_temp("mutated.safetensors", bytes));
  }
}

}  // namespace
}  // namespace tsserve::model
