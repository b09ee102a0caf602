#include "server/codec/common/request_id.h"

#include <gtest/gtest.h>

#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "codec_test_support.h"

namespace tsserve::server {
namespace {

using testing::invalid_argument;

bool printable(const std::string& text) {
  for (char c : text) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

TEST(RequestIdTest, EchoesAValidId) {
  std::string id;
  ASSERT_TRUE(resolve_request_id("trace 42/a:b", &id).ok());
  EXPECT_EQ(id, "trace 42/a:b");
  const std::string longest(kMaxRequestIdBytes, '~');
  ASSERT_TRUE(resolve_request_id(longest, &id).ok());
  EXPECT_EQ(id, longest);
}

TEST(RequestIdTest, RejectsLongOrUnprintableIds) {
  std::string id;
  EXPECT_TRUE(invalid_argument(resolve_request_id(std::string(129, 'a'), &id),
                               {"request_id: 129 bytes; at most 128"}));
  EXPECT_TRUE(invalid_argument(resolve_request_id("ab\x7f", &id), {"request_id: byte 2 is 0x7f"}));
  EXPECT_TRUE(invalid_argument(resolve_request_id("\xc3\xa9t\xc3\xa9", &id), {"byte 0 is 0xc3"}));
  EXPECT_TRUE(
      invalid_argument(resolve_request_id(std::string("a\0b", 3), &id), {"byte 1 is 0x00"}));
}

TEST(RequestIdTest, GeneratesDistinctPrintableIdsAcrossThreads) {
  std::set<std::string> ids;
  std::mutex mutex;
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 500; ++i) {
        std::string id;
        ASSERT_TRUE(resolve_request_id("", &id).ok());
        std::lock_guard<std::mutex> lock(mutex);
        ids.insert(id);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(ids.size(), 2000u);
  for (const std::string& id : ids) {
    ASSERT_FALSE(id.empty());
    ASSERT_LE(id.size(), kMaxRequestIdBytes);
    ASSERT_TRUE(printable(id)) << id;
    std::string echoed;
    ASSERT_TRUE(resolve_request_id(id, &echoed).ok());  // a generated id is a valid id
  }
}

}  // namespace
}  // namespace tsserve::server
