// The one-pass scan of a JSON array of numbers (codec/json/json_float_array.h): the values
// it reads are parse_json_float's for each number's text (the independent reference is
// std::from_chars behind it, tested in json_text_test.cpp), the structure is the array's,
// and anything it cannot read whole makes it give up rather than guess.

#include "server/codec/json/json_float_array.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "float_bits.h"
#include "server/codec/json/json_numbers.h"

namespace tsserve::server {
namespace {

using testing::float_bits;

TEST(JsonFloatArrayTest, ReadsEachNumberAsParseJsonFloatDoes) {
  std::mt19937 random(17);
  std::uniform_real_distribution<double> magnitude(-40.0, 40.0);
  std::string text = "[";
  std::vector<std::string> numbers;
  const char* spaces[] = {"", " ", "\n", "\t ", "\r\n  "};
  for (int i = 0; i < 5000; ++i) {
    char number[64];
    const double value = magnitude(random) * std::pow(10.0, static_cast<int>(random() % 9) - 4);
    std::snprintf(number, sizeof number, random() % 2 ? "%.*g" : "%.*e",
                  1 + static_cast<int>(random() % 17), value);
    numbers.emplace_back(number);
    if (i > 0) text += std::string(spaces[random() % 5]) + ",";
    text += spaces[random() % 5] + numbers.back();
  }
  text += " ]";
  const std::string after = ", \"more\": 1}";
  JsonFloatArray scan;
  ASSERT_EQ(scan_json_float_array(text + after, 0, &scan), text.size());
  ASSERT_EQ(scan.values.size(), numbers.size());
  EXPECT_EQ(scan.scalar_depth, 0);
  ASSERT_EQ(scan.lengths.size(), 1u);
  EXPECT_EQ(scan.lengths[0], std::make_pair(numbers.size(), numbers.size()));
  for (std::size_t i = 0; i < numbers.size(); ++i) {
    float expected = 0;
    ASSERT_EQ(parse_json_float(numbers[i], &expected), JsonNumberError::kNone) << numbers[i];
    ASSERT_EQ(float_bits(scan.values[i]), float_bits(expected)) << numbers[i];
  }
}

TEST(JsonFloatArrayTest, RecordsNestingDepthAndTheLengthsAtEachLevel) {
  JsonFloatArray scan;
  const std::string text = "[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]";
  ASSERT_EQ(scan_json_float_array(text, 8, &scan), text.size());
  EXPECT_EQ(scan.scalar_depth, 2);
  ASSERT_EQ(scan.lengths.size(), 3u);
  EXPECT_EQ(scan.lengths[0], std::make_pair(std::size_t{2}, std::size_t{2}));
  EXPECT_EQ(scan.lengths[1], std::make_pair(std::size_t{3}, std::size_t{3}));
  EXPECT_EQ(scan.lengths[2], std::make_pair(std::size_t{2}, std::size_t{2}));
  EXPECT_EQ(scan.values, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));

  JsonFloatArray ragged;
  ASSERT_GT(scan_json_float_array("[[1, 2], [3]]", 1, &ragged), 0u);
  EXPECT_EQ(ragged.lengths[1], std::make_pair(std::size_t{1}, std::size_t{2}));
}

TEST(JsonFloatArrayTest, GivesUpOnWhatItCannotReadWhole) {
  for (const char* text : {"",           "1",          "[]",     "[ ]",          "[[]]",
                           "[1, \"2\"]", "[1, null]",  "[true]", "[{\"a\": 1}]", "[1, [2]]",
                           "[[1], 2]",   "[01]",       "[+1]",   "[.5]",         "[1.]",
                           "[NaN]",      "[Infinity]", "[-]",    "[1 2]",        "[1,]",
                           "[,1]",       "[1,2",       "[1,2,",  "[1e39]",       "[[[1]]]"}) {
    JsonFloatArray scan;
    EXPECT_EQ(scan_json_float_array(text, 1, &scan), 0u) << text;
  }
  JsonFloatArray deep;
  EXPECT_EQ(scan_json_float_array("[[[1]]]", 1, &deep), 0u);
  EXPECT_EQ(scan_json_float_array("[[[1]]]", 2, &deep), 7u);
}

TEST(JsonFloatArrayTest, KeepsTokensAndReadsOnPastAFloat32OverflowWhenAsked) {
  JsonFloatArray scan;
  scan.overflow_ok = true;
  scan.keep_tokens = true;
  const std::string text = "[1.5, 1e39 , -2]";
  ASSERT_EQ(scan_json_float_array(text, 0, &scan), text.size());
  EXPECT_EQ(scan.text, text);
  EXPECT_FALSE(scan.in_range);
  EXPECT_EQ(scan.tokens, (std::vector<std::string_view>{"1.5", "1e39", "-2"}));
  scan.clear();
  EXPECT_TRUE(scan.keep_tokens);
  EXPECT_TRUE(scan.in_range);
  EXPECT_TRUE(scan.text.empty());
  EXPECT_TRUE(scan.tokens.empty());
}

}  // namespace
}  // namespace tsserve::server
