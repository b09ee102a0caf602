// Fuzz target: what the HTTP door reads from a request before its JSON: the path
// (path_segments), the W3C traceparent header (parse_traceparent) and the body of the
// binary tensor extension (parse_oip_rest_request with an Inference-Header-Content-Length),
// and, for a body it accepts, the answer written back (write_oip_rest_answer).
//
// Input: byte 0 says whether a header length is given; then 4 bytes of header length
// (little-endian); the rest is the text each reader gets (path, header value, body).
// Invariants: refusals are INVALID_ARGUMENT with a message; an accepted path has no
// empty segment; an accepted traceparent has a 32-digit, 16-digit lower-case hex trace
// and parent id, not all zero; an accepted binary body gives every input its bytes
// (raw_input_contents, one per input, when any came binary) and the answer's JSON
// length is within its body.

#include <string>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_target.h"
#include "server/codec/common/trace_context.h"
#include "server/codec/oip_rest/oip_binary_tensors.h"
#include "server/http/http_request_rules.h"

namespace {

bool lower_hex(const std::string& text, std::size_t length) {
  if (text.size() != length || text.find_first_not_of('0') == std::string::npos) return false;
  return text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

void check_refused(const tsserve::server::Status& status) {
  FUZZ_CHECK(
      status.code() == tsserve::server::StatusCode::kInvalidArgument && !status.message().empty(),
      "refused with code " + std::to_string(static_cast<int>(status.code())) + ": " +
          status.message());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tsserve::server;
  tsserve::fuzz::FuzzInput input(data, size);
  const bool has_length = input.coin();
  const auto length = static_cast<std::size_t>(input.bits(4));
  const std::string text(reinterpret_cast<const char*>(data) + (size - input.remaining()),
                         input.remaining());

  std::vector<std::string> segments;
  const Status path = path_segments(text, &segments);
  if (!path.ok()) {
    check_refused(path);
  }

  if (const auto trace = parse_traceparent(text)) {
    FUZZ_CHECK(lower_hex(trace->trace_id, 32) && lower_hex(trace->parent_id, 16),
               "accepted traceparent ids: " + trace->trace_id + " " + trace->parent_id);
  }

  std::string body = text;
  OipRestRequest request;
  const Status parsed = parse_oip_rest_request(
      body, has_length ? std::optional<std::size_t>(length) : std::nullopt, &request);
  if (!parsed.ok()) {
    check_refused(parsed);
    return 0;
  }
  const auto& message = request.message;
  FUZZ_CHECK(message.raw_input_contents_size() == 0 ||
                 message.raw_input_contents_size() == message.inputs_size(),
             "raw contents for some inputs only");
  inference::ModelInferResponse response;
  for (const auto& in : message.inputs()) {
    auto* out = response.add_outputs();
    out->set_name(in.name());
    out->set_datatype(in.datatype());
    *out->mutable_shape() = in.shape();
  }
  *response.mutable_raw_output_contents() = message.raw_input_contents();
  const OipRestAnswer answer = write_oip_rest_answer(request, response);
  FUZZ_CHECK(answer.header_length <= answer.body.size(), "the answer's JSON runs past its body");
  return 0;
}
