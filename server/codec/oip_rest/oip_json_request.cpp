#include "server/codec/oip_rest/oip_json_request.h"

#include <simdjson.h>

#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "server/codec/json/json_numbers.h"
#include "server/codec/json/json_reading.h"
#include "server/codec/json/reused_json_parser.h"

namespace tsserve::server {
namespace {

namespace od = simdjson::ondemand;
using simdjson::error_code;

// Deeper than any tensor tsserve takes (rank 3); stops a pathological body early.
constexpr int kMaxDataDepth = 8;

// The scalars of a tensor's "data" as found, before the datatype and shape (which may come
// after it in the object) say what they must be.
struct TensorData {
  enum class Kind { kNone, kNumber, kBool, kString };
  Kind kind = Kind::kNone;
  std::vector<std::string_view> numbers;  // raw tokens, read when the datatype is known
  // Numbers the one-pass scan read: as float32 (an FP32 tensor's values, when
  // `floats_in_range`), and the array's text, scanned again for the tokens when the
  // datatype turns out to be another.
  std::vector<float> floats;
  bool floats_in_range = false;
  std::string_view scanned_text;
  std::vector<bool> bools;
  std::vector<std::string> strings;
  int scalar_depth = -1;  // how deep the scalars sit (0: flat)
  // The lengths of the arrays met at each depth (0: "data" itself): min and max.
  std::vector<std::pair<std::size_t, std::size_t>> lengths;
  std::size_t count() const {
    return numbers.size() + bools.size() + strings.size() + floats.size();
  }
};

const char* kind_name(TensorData::Kind kind) {
  switch (kind) {
    case TensorData::Kind::kNumber:
      return "numbers";
    case TensorData::Kind::kBool:
      return "booleans";
    case TensorData::Kind::kString:
      return "strings";
    case TensorData::Kind::kNone:
      break;
  }
  return "nothing";
}

Status collect_scalar(od::value& value, od::json_type type, const std::string& path,
                      TensorData* data) {
  TensorData::Kind kind = TensorData::Kind::kNone;
  switch (type) {
    case od::json_type::number:
      kind = TensorData::Kind::kNumber;
      break;
    case od::json_type::boolean:
      kind = TensorData::Kind::kBool;
      break;
    case od::json_type::string:
      kind = TensorData::Kind::kString;
      break;
    default:
      return invalid_argument(json_element(path, data->count()) +
                              ": null; tensor data holds numbers, booleans or strings");
  }
  if (data->kind != TensorData::Kind::kNone && data->kind != kind) {
    return invalid_argument(path + ": mixes " + kind_name(data->kind) + " and " + kind_name(kind) +
                            "; a tensor's elements have one type");
  }
  data->kind = kind;
  if (kind == TensorData::Kind::kNumber) {
    data->numbers.push_back(value.raw_json_token());
  } else if (kind == TensorData::Kind::kBool) {
    bool flag = false;
    if (auto error = value.get_bool().get(flag)) return json_malformed(error, path);
    data->bools.push_back(flag);
  } else {
    std::string_view text;
    if (auto error = value.get_string().get(text)) return json_malformed(error, path);
    data->strings.emplace_back(text);
  }
  return {};
}

Status collect_data(od::array array, int depth, const std::string& path, TensorData* data) {
  if (depth > kMaxDataDepth) {
    return invalid_argument(path + ": nested deeper than " + std::to_string(kMaxDataDepth) +
                            " levels; give data flat or nested as its shape");
  }
  std::size_t length = 0;
  for (auto item : array) {
    od::value value;
    if (auto error = std::move(item).get(value)) return json_malformed(error, path);
    od::json_type type;
    if (auto error = value.type().get(type)) return json_malformed(error, path);
    if (type == od::json_type::array) {
      od::array inner;
      if (auto error = value.get_array().get(inner)) return json_malformed(error, path);
      TSSERVE_RETURN_IF_ERROR(collect_data(inner, depth + 1, path, data));
    } else if (type == od::json_type::object) {
      return invalid_argument(path +
                              ": holds an object; tensor data holds numbers, booleans "
                              "or strings, in arrays");
    } else {
      if (data->scalar_depth >= 0 && data->scalar_depth != depth) {
        return invalid_argument(path +
                                ": elements at different depths; nest every element "
                                "as deep as the others");
      }
      data->scalar_depth = depth;
      TSSERVE_RETURN_IF_ERROR(collect_scalar(value, type, path, data));
    }
    ++length;
  }
  if (data->lengths.size() <= static_cast<std::size_t>(depth)) {
    // Levels met for the first time start empty: shortest above longest.
    data->lengths.resize(static_cast<std::size_t>(depth) + 1,
                         {std::numeric_limits<std::size_t>::max(), 0});
  }
  auto& [shortest, longest] = data->lengths[static_cast<std::size_t>(depth)];
  shortest = std::min(shortest, length);
  longest = std::max(longest, length);
  return {};
}

// Nested data must follow the shape exactly: as many levels as dimensions, each array as
// long as its dimension. Flat data is counted by the decoder.
Status check_nesting(const TensorData& data, const google::protobuf::RepeatedField<int64_t>& shape,
                     const std::string& path) {
  if (data.scalar_depth <= 0) return {};
  const auto levels = static_cast<std::size_t>(data.scalar_depth) + 1;
  if (levels != static_cast<std::size_t>(shape.size())) {
    return invalid_argument(path + ": nested " + std::to_string(levels) +
                            " levels deep for a shape of " + std::to_string(shape.size()) +
                            " dimensions; give it flat or nested as the shape");
  }
  for (std::size_t level = 0; level < levels; ++level) {
    const auto [shortest, longest] = data.lengths[level];
    const auto want = static_cast<std::size_t>(shape[static_cast<int>(level)]);
    if (shortest != want || longest != want) {
      return invalid_argument(path + ": arrays at depth " + std::to_string(level) + " hold " +
                              std::to_string(shortest == longest ? shortest : longest) +
                              " elements where shape dimension " + std::to_string(level) + " is " +
                              std::to_string(want));
    }
  }
  return {};
}

template <typename Int, typename Add>
Status fill_integers(const TensorData& data, const std::string& path, const char* datatype,
                     Add add) {
  for (std::size_t i = 0; i < data.numbers.size(); ++i) {
    const bool is_signed = std::numeric_limits<Int>::is_signed;
    std::int64_t signed_value = 0;
    std::uint64_t unsigned_value = 0;
    const JsonNumberError error = is_signed ? parse_json_int64(data.numbers[i], &signed_value)
                                            : parse_json_uint64(data.numbers[i], &unsigned_value);
    bool fits = error == JsonNumberError::kNone;
    if (fits && is_signed) {
      fits = signed_value >= static_cast<std::int64_t>(std::numeric_limits<Int>::min()) &&
             signed_value <= static_cast<std::int64_t>(std::numeric_limits<Int>::max());
    } else if (fits) {
      fits = unsigned_value <= static_cast<std::uint64_t>(std::numeric_limits<Int>::max());
    }
    if (!fits) {
      const char* why = error == JsonNumberError::kNone ? "is out of range" : describe(error);
      return invalid_argument(json_element(path, i) + ": " + std::string(data.numbers[i]) + " " +
                              why + " for " + datatype);
    }
    if (is_signed) {
      add(static_cast<Int>(signed_value));
    } else {
      add(static_cast<Int>(unsigned_value));
    }
  }
  return {};
}

template <typename Float, typename Add>
Status fill_floats(const TensorData& data, const std::string& path, const char* datatype, Add add) {
  for (std::size_t i = 0; i < data.numbers.size(); ++i) {
    Float value = 0;
    JsonNumberError error;
    if constexpr (std::is_same_v<Float, float>) {
      error = parse_json_float(data.numbers[i], &value);
    } else {
      error = parse_json_double(data.numbers[i], &value);
    }
    if (error != JsonNumberError::kNone) {
      std::string token(data.numbers[i]);
      while (!token.empty() && (token.back() == ' ' || token.back() == '\n' ||
                                token.back() == '\r' || token.back() == '\t')) {
        token.pop_back();
      }
      return invalid_argument(json_element(path, i) + ": " + token + " " + describe(error) +
                              " for " + datatype);
    }
    add(value);
  }
  return {};
}

// The collected data into the contents field of `datatype`.
Status fill_contents(const TensorData& data, const std::string& datatype, const std::string& path,
                     inference::InferTensorContents* contents) {
  using Kind = TensorData::Kind;
  const auto needs = [&](Kind kind, const char* what) -> Status {
    if (data.kind == Kind::kNone || data.kind == kind) return {};
    return invalid_argument(path + ": " + kind_name(data.kind) + " for a " + datatype +
                            " tensor; it takes " + what);
  };
  if (datatype == "FP32") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kNumber, "numbers"));
    if (data.floats_in_range) {
      contents->mutable_fp32_contents()->Add(data.floats.begin(), data.floats.end());
      return {};
    }
    contents->mutable_fp32_contents()->Reserve(static_cast<int>(data.numbers.size()));
    return fill_floats<float>(data, path, "FP32", [&](float v) { contents->add_fp32_contents(v); });
  }
  if (datatype == "FP64") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kNumber, "numbers"));
    return fill_floats<double>(data, path, "FP64",
                               [&](double v) { contents->add_fp64_contents(v); });
  }
  if (datatype == "INT64") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kNumber, "integers"));
    return fill_integers<std::int64_t>(data, path, "INT64",
                                       [&](std::int64_t v) { contents->add_int64_contents(v); });
  }
  if (datatype == "INT32" || datatype == "INT16" || datatype == "INT8") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kNumber, "integers"));
    const auto add = [&](std::int32_t v) { contents->add_int_contents(v); };
    if (datatype == "INT8") return fill_integers<std::int8_t>(data, path, "INT8", add);
    if (datatype == "INT16") return fill_integers<std::int16_t>(data, path, "INT16", add);
    return fill_integers<std::int32_t>(data, path, "INT32", add);
  }
  if (datatype == "UINT64") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kNumber, "integers"));
    return fill_integers<std::uint64_t>(data, path, "UINT64",
                                        [&](std::uint64_t v) { contents->add_uint64_contents(v); });
  }
  if (datatype == "UINT32" || datatype == "UINT16" || datatype == "UINT8") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kNumber, "integers"));
    const auto add = [&](std::uint32_t v) { contents->add_uint_contents(v); };
    if (datatype == "UINT8") return fill_integers<std::uint8_t>(data, path, "UINT8", add);
    if (datatype == "UINT16") return fill_integers<std::uint16_t>(data, path, "UINT16", add);
    return fill_integers<std::uint32_t>(data, path, "UINT32", add);
  }
  if (datatype == "BOOL") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kBool, "true and false"));
    for (bool flag : data.bools) contents->add_bool_contents(flag);
    return {};
  }
  if (datatype == "BYTES") {
    TSSERVE_RETURN_IF_ERROR(needs(Kind::kString, "strings"));
    for (const std::string& text : data.strings) contents->add_bytes_contents(text);
    return {};
  }
  if (datatype == "FP16" || datatype == "BF16") {
    return invalid_argument(path + ": " + datatype +
                            " has no JSON form; send FP32 (or the binary tensor extension)");
  }
  return invalid_argument(path + ": datatype \"" + datatype +
                          "\" is not one of the protocol's (BOOL, UINT8, UINT16, UINT32, "
                          "UINT64, INT8, INT16, INT32, INT64, FP16, FP32, FP64, BYTES)");
}

Status parse_shape(od::value& value, const std::string& path,
                   google::protobuf::RepeatedField<int64_t>* shape) {
  od::array dims;
  if (auto error = value.get_array().get(dims)) {
    return json_expected(error, path, "an array of dimensions");
  }
  for (auto item : dims) {
    od::value dim;
    if (auto error = std::move(item).get(dim)) return json_malformed(error, path);
    const std::string at = json_element(path, static_cast<std::size_t>(shape->size()));
    od::json_type type;
    if (auto error = dim.type().get(type)) return json_malformed(error, at);
    if (type != od::json_type::number) return invalid_argument(at + ": expected an integer");
    std::int64_t size = 0;
    const JsonNumberError error = parse_json_int64(dim.raw_json_token(), &size);
    if (error != JsonNumberError::kNone || size < 0) {
      return invalid_argument(at + ": expected a dimension, an integer >= 0");
    }
    shape->Add(size);
  }
  return {};
}

// {"name": value, ...}: strings, booleans and integers, as InferParameter holds them.
Status parse_parameters(od::value& value, const std::string& path,
                        google::protobuf::Map<std::string, inference::InferParameter>* out) {
  od::object object;
  if (auto error = value.get_object().get(object)) {
    return json_expected(error, path, "an object of parameters");
  }
  return for_each_json_field(object, path, [&](std::string_view key, od::value& parameter) {
    const std::string at = json_member(path, key);
    if (out->count(std::string(key)) != 0) return json_duplicate(path, key);
    od::json_type type;
    if (auto error = parameter.type().get(type)) return json_malformed(error, at);
    inference::InferParameter& slot = (*out)[std::string(key)];
    switch (type) {
      case od::json_type::string: {
        std::string_view text;
        if (auto error = parameter.get_string().get(text)) return json_malformed(error, at);
        slot.set_string_param(std::string(text));
        break;
      }
      case od::json_type::boolean: {
        bool flag = false;
        if (auto error = parameter.get_bool().get(flag)) return json_malformed(error, at);
        slot.set_bool_param(flag);
        break;
      }
      case od::json_type::number: {
        std::int64_t number = 0;
        const JsonNumberError error = parse_json_int64(parameter.raw_json_token(), &number);
        if (error != JsonNumberError::kNone) {
          return invalid_argument(at + ": " + describe(error) +
                                  " as an int64; a parameter is a string, a boolean or an "
                                  "integer");
        }
        slot.set_int64_param(number);
        break;
      }
      default:
        return invalid_argument(at + ": expected a string, a boolean or an integer");
    }
    return Status();
  });
}

// "data" by the one-pass scan (json_float_array.h) when it holds only numbers, read as
// float32 (the datatype, maybe still to come, decides whether they count); else element
// by element, which names what is wrong.
Status read_data(od::value& item, std::string_view body, const std::string& path,
                 TensorData* data) {
  JsonFloatArray scan;  // its vectors are handed to `data`
  scan.overflow_ok = true;
  bool scanned = false;
  TSSERVE_RETURN_IF_ERROR(scan_json_floats(item, body, path, kMaxDataDepth, &scan, &scanned));
  if (scanned) {
    data->kind = TensorData::Kind::kNumber;
    data->floats.swap(scan.values);  // handed over, not copied
    data->floats_in_range = scan.in_range;
    data->scanned_text = scan.text;
    data->scalar_depth = scan.scalar_depth;
    data->lengths = scan.lengths;
    return {};
  }
  od::array array;
  if (auto error = item.get_array().get(array)) {
    return json_expected(error, path, "an array of tensor elements");
  }
  return collect_data(array, 0, path, data);
}

// The scanned numbers' text, for a datatype other than FP32 (or an FP32 overflow to name).
void keep_scanned_tokens(TensorData* data) {
  if (data->scanned_text.empty() || !data->numbers.empty()) return;
  JsonFloatArray again;
  again.overflow_ok = true;
  again.keep_tokens = true;
  scan_json_float_array(data->scanned_text, kMaxDataDepth, &again);
  data->numbers.swap(again.tokens);
  data->floats.clear();
}

Status parse_input(od::value& value, std::string_view body, const std::string& path,
                   inference::ModelInferRequest::InferInputTensor* input) {
  od::object object;
  if (auto error = value.get_object().get(object))
    return json_expected(error, path, "an input object");
  TensorData data;
  bool has_name = false, has_shape = false, has_datatype = false, has_data = false,
       has_parameters = false;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(object, path, [&](std::string_view key, od::value& item) -> Status {
        const auto once = [&](bool* seen) { return first_time(seen, path, key); };
        if (key == "name") {
          TSSERVE_RETURN_IF_ERROR(once(&has_name));
          TSSERVE_RETURN_IF_ERROR(
              read_json_string(item, json_member(path, key), input->mutable_name()));
        } else if (key == "shape") {
          TSSERVE_RETURN_IF_ERROR(once(&has_shape));
          TSSERVE_RETURN_IF_ERROR(
              parse_shape(item, json_member(path, key), input->mutable_shape()));
        } else if (key == "datatype") {
          TSSERVE_RETURN_IF_ERROR(once(&has_datatype));
          TSSERVE_RETURN_IF_ERROR(
              read_json_string(item, json_member(path, key), input->mutable_datatype()));
        } else if (key == "parameters") {
          TSSERVE_RETURN_IF_ERROR(once(&has_parameters));
          TSSERVE_RETURN_IF_ERROR(
              parse_parameters(item, json_member(path, key), input->mutable_parameters()));
        } else if (key == "data") {
          TSSERVE_RETURN_IF_ERROR(once(&has_data));
          TSSERVE_RETURN_IF_ERROR(read_data(item, body, json_member(path, key), &data));
        } else {
          return invalid_argument(json_member(path, key) +
                                  ": unknown field; an input has name, shape, datatype, parameters "
                                  "and data");
        }
        return Status();
      }));
  if (!has_name) return invalid_argument(path + ".name: missing");
  if (!has_shape) return invalid_argument(path + ".shape: missing");
  if (!has_datatype) return invalid_argument(path + ".datatype: missing");
  // The binary tensor extension (oip_binary_tensors.h) carries the data after the JSON.
  const bool binary = input->parameters().count("binary_data_size") != 0;
  if (binary && has_data) {
    return invalid_argument(path + ": both data and parameters.binary_data_size; give one");
  }
  if (binary) return {};
  if (!has_data) return invalid_argument(path + ".data: missing");
  const std::string data_path = path + ".data";
  TSSERVE_RETURN_IF_ERROR(check_nesting(data, input->shape(), data_path));
  if (input->datatype() != "FP32" || !data.floats_in_range) keep_scanned_tokens(&data);
  return fill_contents(data, input->datatype(), data_path, input->mutable_contents());
}

Status parse_output(od::value& value, const std::string& path,
                    inference::ModelInferRequest::InferRequestedOutputTensor* output) {
  od::object object;
  if (auto error = value.get_object().get(object))
    return json_expected(error, path, "an output object");
  bool has_name = false, has_parameters = false;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(object, path, [&](std::string_view key, od::value& item) -> Status {
        if (key == "name") {
          TSSERVE_RETURN_IF_ERROR(first_time(&has_name, path, key));
          return read_json_string(item, json_member(path, key), output->mutable_name());
        }
        if (key == "parameters") {
          TSSERVE_RETURN_IF_ERROR(first_time(&has_parameters, path, key));
          return parse_parameters(item, json_member(path, key), output->mutable_parameters());
        }
        return invalid_argument(json_member(path, key) +
                                ": unknown field; an output has name and parameters");
      }));
  if (!has_name) return invalid_argument(path + ".name: missing");
  return {};
}

}  // namespace

Status parse_oip_json_request(std::string& body, inference::ModelInferRequest* request) {
  ReusedJsonParser parser;
  od::document document;
  od::object root;
  TSSERVE_RETURN_IF_ERROR(open_json_object(body, parser.get(), &document, &root,
                                           "a JSON object (an inference request)"));
  bool has_id = false, has_parameters = false, has_inputs = false, has_outputs = false;
  TSSERVE_RETURN_IF_ERROR(
      for_each_json_field(root, "", [&](std::string_view key, od::value& value) -> Status {
        if (key == "id") {
          TSSERVE_RETURN_IF_ERROR(first_time(&has_id, "", key));
          return read_json_string(value, "id", request->mutable_id());
        }
        if (key == "parameters") {
          TSSERVE_RETURN_IF_ERROR(first_time(&has_parameters, "", key));
          return parse_parameters(value, "parameters", request->mutable_parameters());
        }
        if (key == "inputs") {
          TSSERVE_RETURN_IF_ERROR(first_time(&has_inputs, "", key));
          return for_each_json_element(value, "inputs", "an array of input tensors",
                                       [&](od::value& v, const JsonElementPath& at) {
                                         return parse_input(v, body, at, request->add_inputs());
                                       });
        }
        if (key == "outputs") {
          TSSERVE_RETURN_IF_ERROR(first_time(&has_outputs, "", key));
          return for_each_json_element(value, "outputs", "an array of requested outputs",
                                       [&](od::value& v, const JsonElementPath& at) {
                                         return parse_output(v, at, request->add_outputs());
                                       });
        }
        return invalid_argument(std::string(key) +
                                ": unknown field; an inference request has id, parameters, "
                                "inputs and outputs");
      }));
  TSSERVE_RETURN_IF_ERROR(json_ends_after_object(document));
  if (!has_inputs) return invalid_argument("inputs: missing; the request needs its input tensors");
  return {};
}

}  // namespace tsserve::server
