// JSON text for the HTTP doors: the writer (escapes, commas, float32 in the fewest digits
// that read back to the same float_bits) and numbers read from their text (the JSON grammar,
// float32 rounded from the decimal directly, integer ranges).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "float_bits.h"
#include "server/codec/json/json_numbers.h"
#include "server/codec/json/json_writer.h"

namespace tsserve::server {
namespace {

using testing::float_bits;

TEST(JsonWriterTest, PlacesCommasAndColonsInNestedValues) {
  JsonWriter json;
  json.begin_object();
  json.key("a").integer(-3);
  json.key("b").begin_array().boolean(true).null().string("x").end_array();
  json.key("c").begin_object().end_object();
  json.key("d").begin_array().end_array();
  json.end_object();
  EXPECT_EQ(json.take(), R"({"a":-3,"b":[true,null,"x"],"c":{},"d":[]})");
}

TEST(JsonWriterTest, EscapesWhatJsonRequiresAndReplacesBytesThatAreNotUtf8) {
  EXPECT_EQ(json_quoted("a\"b\\c\n\t\x01"), R"("a\"b\\c\n\t\u0001")");
  EXPECT_EQ(json_quoted("h\xc3\xa9llo \xe2\x82\xac"), "\"h\xc3\xa9llo \xe2\x82\xac\"");  // é, €
  const std::string replacement = "\xEF\xBF\xBD";                                        // U+FFFD
  EXPECT_EQ(json_quoted("bad \xff end"), "\"bad " + replacement + " end\"");
  // A sequence cut short, and a UTF-16 surrogate.
  EXPECT_EQ(json_quoted("cut \xe2\x82"), "\"cut " + replacement + replacement + "\"");
  EXPECT_EQ(json_quoted("\xed\xa0\x80"), "\"" + replacement + replacement + replacement + "\"");
  EXPECT_EQ(json_error_body("model \"x\" not found"), R"({"error":"model \"x\" not found"})");
}

TEST(JsonWriterTest, WritesNonFiniteNumbersAsNull) {
  const float values[] = {1.5f, std::numeric_limits<float>::quiet_NaN(),
                          -std::numeric_limits<float>::infinity()};
  EXPECT_EQ(JsonWriter().numbers(values, 3).take(), "[1.5,null,null]");
}

TEST(JsonWriterTest, EveryFloat32ReadsBackToTheSameBits) {
  // Random bit patterns cover every exponent, subnormals included.
  std::mt19937 random(11);
  std::vector<float> values;
  while (values.size() < 200000) {
    const std::uint32_t pattern = random();
    float value;
    std::memcpy(&value, &pattern, sizeof value);
    if (std::isfinite(value)) values.push_back(value);
  }
  values.push_back(std::numeric_limits<float>::max());
  values.push_back(std::numeric_limits<float>::denorm_min());
  values.push_back(-0.0f);
  const std::string text = JsonWriter().numbers(values.data(), values.size()).take();
  std::size_t start = 1;
  for (const float value : values) {
    const std::size_t end = text.find_first_of(",]", start);
    float back = 0;
    ASSERT_EQ(parse_json_float(std::string_view(text).substr(start, end - start), &back),
              JsonNumberError::kNone)
        << text.substr(start, end - start);
    ASSERT_EQ(float_bits(back), float_bits(value)) << text.substr(start, end - start);
    start = end + 1;
  }
}

TEST(JsonNumbersTest, AcceptsOnlyTheJsonNumberGrammar) {
  float value = 0;
  for (const char* good : {"0", "-0", "12", "1.5", "-1.5e3", "1E+2", "2e-3", "0.25 ", "7\n"}) {
    EXPECT_EQ(parse_json_float(good, &value), JsonNumberError::kNone) << good;
  }
  for (const char* bad : {"", "-", "01", "+1", ".5", "1.", "1e", "1e+", "NaN", "nan", "Infinity",
                          "-Infinity", "inf", "0x10", "1,5", "1 2", "\"1\""}) {
    EXPECT_EQ(parse_json_float(bad, &value), JsonNumberError::kNotANumber) << bad;
  }
}

TEST(JsonNumbersTest, RoundsFloat32FromTheDecimalAndRefusesOverflow) {
  float value = 0;
  ASSERT_EQ(parse_json_float("0.1", &value), JsonNumberError::kNone);
  EXPECT_EQ(float_bits(value), float_bits(0.1f));
  // Halfway between two floats in decimal: rounding through a double would go the other
  // way for some such values; from the decimal it is the nearest float, ties to even.
  ASSERT_EQ(parse_json_float("1.00000005960464477539062500000000001", &value),
            JsonNumberError::kNone);
  EXPECT_EQ(float_bits(value), float_bits(1.0f) + 1);
  EXPECT_EQ(parse_json_float("3.5e38", &value), JsonNumberError::kOutOfRange);
  EXPECT_EQ(parse_json_float("-1e39", &value), JsonNumberError::kOutOfRange);
  double wide = 0;
  EXPECT_EQ(parse_json_double("3.5e38", &wide), JsonNumberError::kNone);
  EXPECT_EQ(parse_json_double("1e309", &wide), JsonNumberError::kOutOfRange);
  // Below the smallest subnormal: zero, as float arithmetic would give, with its sign.
  ASSERT_EQ(parse_json_float("1e-50", &value), JsonNumberError::kNone);
  EXPECT_EQ(float_bits(value), float_bits(0.0f));
  ASSERT_EQ(parse_json_float("-1e-50", &value), JsonNumberError::kNone);
  EXPECT_EQ(float_bits(value), float_bits(-0.0f));
  ASSERT_EQ(parse_json_float("1e-40", &value), JsonNumberError::kNone);  // a subnormal
  EXPECT_GT(value, 0.0f);
  EXPECT_LT(value, std::numeric_limits<float>::min());
}

TEST(JsonNumbersTest, ADecimalBesideAFloatMidpointIsNotRoundedThroughItsDouble) {
  // 16 digits: within the one-pass fast path (digits <= 2^53). The nearest double of each
  // is exactly halfway between two floats, so rounding that double to a float would tie
  // to the even one; each decimal lies on the other side of halfway.
  float value = 0;
  // Just above 8 + 2^-21: the nearest float is 8 + 2^-20 (the tie would give 8).
  ASSERT_EQ(parse_json_float("8.000000476837159", &value), JsonNumberError::kNone);
  EXPECT_EQ(float_bits(value), float_bits(8.0f) + 1);
  // Just below 8 + 3 x 2^-21: the nearest float is 8 + 2^-20 (the tie would give 8 + 2^-19).
  ASSERT_EQ(parse_json_float("-8.000001430511474", &value), JsonNumberError::kNone);
  EXPECT_EQ(float_bits(value), float_bits(-8.0f) + 1);
}

TEST(JsonNumbersTest, EveryDecimalReadsAsFromCharsReadsIt) {
  // std::from_chars rounds a decimal correctly (the independent reference); random
  // decimals of 1-21 significant digits, leading zeros, exponents, signs.
  std::mt19937_64 random(5);
  const auto digits = [&](int count, bool leading_nonzero) {
    std::string out;
    for (int i = 0; i < count; ++i) {
      const int first = (i == 0 && leading_nonzero) ? 1 : 0;
      out += static_cast<char>('0' + first + static_cast<int>(random() % (10 - first)));
    }
    return out;
  };
  for (int trial = 0; trial < 300000; ++trial) {
    std::string text = random() % 2 ? "-" : "";
    const int whole = static_cast<int>(random() % 12);
    text += whole == 0 ? "0" : digits(whole, true);
    if (random() % 4 != 0) text += "." + digits(1 + static_cast<int>(random() % 20), false);
    if (random() % 3 == 0) {
      text += random() % 2 ? "e" : "E-";
      text += std::to_string(random() % 45);
    }
    float value = 0;
    float reference = 0;
    const auto ours = parse_json_float(text, &value);
    const auto theirs = std::from_chars(text.data(), text.data() + text.size(), reference);
    if (theirs.ec == std::errc::result_out_of_range) {
      EXPECT_NE(ours, JsonNumberError::kNotANumber) << text;
      continue;
    }
    ASSERT_EQ(ours, JsonNumberError::kNone) << text;
    ASSERT_EQ(float_bits(value), float_bits(reference)) << text;
    double wide = 0;
    double wide_reference = 0;
    ASSERT_EQ(parse_json_double(text, &wide), JsonNumberError::kNone) << text;
    std::from_chars(text.data(), text.data() + text.size(), wide_reference);
    ASSERT_EQ(wide, wide_reference) << text;
  }
}

TEST(JsonNumbersTest, ReadsIntegersWithinTheirType) {
  std::int64_t signed_value = 0;
  std::uint64_t unsigned_value = 0;
  EXPECT_EQ(parse_json_int64("-9223372036854775808", &signed_value), JsonNumberError::kNone);
  EXPECT_EQ(signed_value, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(parse_json_int64("9223372036854775808", &signed_value), JsonNumberError::kOutOfRange);
  EXPECT_EQ(parse_json_int64("1.0", &signed_value), JsonNumberError::kNotAnInteger);
  EXPECT_EQ(parse_json_int64("1e3", &signed_value), JsonNumberError::kNotAnInteger);
  EXPECT_EQ(parse_json_uint64("18446744073709551615", &unsigned_value), JsonNumberError::kNone);
  EXPECT_EQ(parse_json_uint64("-1", &unsigned_value), JsonNumberError::kOutOfRange);
}

}  // namespace
}  // namespace tsserve::server
