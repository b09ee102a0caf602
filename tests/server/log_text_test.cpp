// log_text(): request text made safe for a log line, escaped and cut (log_text.h).

#include "server/observability/log_text.h"

#include <gtest/gtest.h>

#include <string>

namespace tsserve::server {
namespace log_text_test {

TEST(LogText, PlainTextIsKeptAsIs) {
  EXPECT_EQ(log_text("patchtst-etth1"), "patchtst-etth1");
  EXPECT_EQ(log_text(""), "");
  EXPECT_EQ(log_text("caf\xc3\xa9 \xe6\x97\xa5"), "caf\xc3\xa9 \xe6\x97\xa5");  // UTF-8 kept
}

TEST(LogText, ControlBytesCannotForgeALineOrDriveATerminal) {
  EXPECT_EQ(log_text("a\nINFO forged\r\tb"), "a\\nINFO forged\\r\\tb");
  EXPECT_EQ(log_text("\x1b[2J\x1b]0;owned\x07"), "\\x1b[2J\\x1b]0;owned\\x07");
  EXPECT_EQ(log_text(std::string("nul\0del\x7f", 8)), "nul\\x00del\\x7f");
  // The backslash itself is escaped, so "\\n" in the log was never a newline.
  EXPECT_EQ(log_text("a\\nb"), "a\\\\nb");
}

TEST(LogText, InvalidUtf8AndInvisibleCodePointsAreEscaped) {
  EXPECT_EQ(log_text("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(log_text("\xc3"), "\\xc3");                    // cut off
  EXPECT_EQ(log_text("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(log_text("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(log_text("\xc2\x9b"
                     "31m"),
            "\\u{009b}31m");  // C1 CSI
  EXPECT_EQ(log_text("abc\xe2\x80\xae"
                     "cba"),
            "abc\\u{202e}cba");                      // right-to-left override
  EXPECT_EQ(log_text("\xe2\x80\xa8"), "\\u{2028}");  // line separator
}

TEST(LogText, LongTextIsCutAtAWholeUnitWithItsLength) {
  const std::string name(8192, 'x');
  EXPECT_EQ(log_text(name), std::string(200, 'x') + "\xe2\x80\xa6(8192 bytes)");
  EXPECT_EQ(log_text("abcdef", 4), "abcd\xe2\x80\xa6(6 bytes)");
  EXPECT_EQ(log_text("abcd", 4), "abcd");  // at the bound: whole, no marker
  // An escape or a character is never split: "ab\n" does not fit in 3 as "ab\".
  EXPECT_EQ(log_text("ab\ncd", 3), "ab\xe2\x80\xa6(5 bytes)");
  EXPECT_EQ(log_text("a\xc3\xa9", 2), "a\xe2\x80\xa6(3 bytes)");
  // Escaping counts towards the bound: 100 newlines take 200 bytes escaped.
  EXPECT_EQ(log_text(std::string(150, '\n')), [] {
    std::string out;
    for (int i = 0; i < 100; ++i) out += "\\n";
    return out;
  }() + "\xe2\x80\xa6(150 bytes)");
}

}  // namespace log_text_test
}  // namespace tsserve::server
