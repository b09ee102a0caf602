// The live series' snapshot: the bytes against the layout series_snapshot.h documents
// (written here by hand, with an FNV-1a of the test's own), round trips bit for bit, every
// truncation and flipped byte refused, content that breaks a window's invariants refused
// under a valid checksum, and the file written atomically, read back, and set aside when
// it is bad.
#include "server/live/series_snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "float_bits.h"
#include "server/live/series_snapshot_file.h"

namespace tsserve::server {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using testing::float_bits;
using ::testing::HasSubstr;

// Bytes in the documented layout, built field by field (independent of the encoder).
class SnapshotLayout {
 public:
  SnapshotLayout& raw(const std::string& bytes) {
    bytes_ += bytes;
    return *this;
  }
  SnapshotLayout& u32(uint32_t value) { return little_endian(value, 4); }
  SnapshotLayout& u64(uint64_t value) { return little_endian(value, 8); }
  SnapshotLayout& i64(int64_t value) { return little_endian(static_cast<uint64_t>(value), 8); }
  SnapshotLayout& text(const std::string& value) {
    u32(static_cast<uint32_t>(value.size()));
    return raw(value);
  }
  SnapshotLayout& f32(float value) { return u32(float_bits(value)); }
  // The header of `windows` windows.
  SnapshotLayout& header(uint64_t windows) { return raw("TSSERIES").u32(1).u64(windows); }
  // A window's fields up to its points, as the layout orders them.
  SnapshotLayout& window(const std::string& key, const std::string& model,
                         const std::string& pinned, const std::vector<std::string>& names,
                         int64_t variables, int64_t step, int64_t last, int64_t accepted,
                         int64_t points) {
    text(key).text(model).text(pinned).u32(static_cast<uint32_t>(names.size()));
    for (const std::string& name : names) text(name);
    return i64(variables).i64(step).i64(last).i64(accepted).i64(points);
  }
  // The bytes so far and their FNV-1a 64, computed here.
  std::string sealed() const {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const char byte : bytes_) {
      hash = (hash ^ static_cast<unsigned char>(byte)) * 0x100000001b3ull;
    }
    SnapshotLayout out = *this;
    return out.u64(hash).bytes_;
  }

 private:
  SnapshotLayout& little_endian(uint64_t value, int width) {
    for (int i = 0; i < width; ++i) bytes_.push_back(static_cast<char>(value >> (8 * i)));
    return *this;
  }

  std::string bytes_;
};

SeriesWindow snapshot_window(const std::string& key, std::vector<std::string> names,
                             int64_t variables, std::vector<float> values) {
  SeriesWindow window;
  window.series_key = key;
  window.binding.model = "patchtst-etth1";
  window.binding.variable_names = std::move(names);
  window.binding.variables = variables;
  window.values = std::move(values);
  window.step_seconds = 3600;
  window.last_timestamp = 1'700'000'000;
  window.accepted_total = window.points() + 10;
  return window;
}

// Two windows: named with a pinned version and awkward floats; nameless, one point, step 0.
std::vector<SeriesWindow> two_windows() {
  SeriesWindow named = snapshot_window(
      "sensor-1", {"HUFL", "OT"}, 2,
      {-0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
       std::numeric_limits<float>::lowest(), 1e-30f, 3.25f});
  named.binding.pinned_version = "7";
  SeriesWindow nameless = snapshot_window("s2", {}, 3, {1, 2, 3});
  nameless.step_seconds = 0;
  nameless.last_timestamp = -86400;
  nameless.accepted_total = 1;
  return {named, nameless};
}

void expect_same_bits(const std::vector<SeriesWindow>& got, const std::vector<SeriesWindow>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    EXPECT_EQ(got[k], want[k]);
    ASSERT_EQ(got[k].values.size(), want[k].values.size());
    for (std::size_t i = 0; i < got[k].values.size(); ++i) {
      EXPECT_EQ(float_bits(got[k].values[i]), float_bits(want[k].values[i])) << k << ", " << i;
    }
  }
}

// `bytes` is refused with FAILED_PRECONDITION, leaving the output empty; the message.
std::string refusal_of(const std::string& bytes) {
  std::vector<SeriesWindow> out = two_windows();  // to see it cleared
  const Status status = decode_series_snapshot(bytes, &out);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(out.empty());
  return status.message();
}

TEST(SeriesSnapshotTest, EncodesTheDocumentedLayout) {
  SeriesWindow window = snapshot_window("k", {"a"}, 1, {1.5f, -2.0f});
  window.binding.model = "m";
  window.step_seconds = 60;
  window.last_timestamp = 1000;
  window.accepted_total = 5;
  const std::string expected = SnapshotLayout()
                                   .header(1)
                                   .window("k", "m", "", {"a"}, 1, 60, 1000, 5, 2)
                                   .u64(2)
                                   .f32(1.5f)
                                   .f32(-2.0f)
                                   .sealed();
  EXPECT_EQ(encode_series_snapshot({window}), expected);
  // Header, "k", "m", "", the name count, "a", five i64, the value count, 2 floats, checksum.
  EXPECT_EQ(expected.size(), 20u + 5 + 5 + 4 + 4 + 5 + 5 * 8 + 8 + 2 * 4 + 8);
}

TEST(SeriesSnapshotTest, RoundTripIsBitwise) {
  const std::vector<SeriesWindow> windows = two_windows();
  const std::string bytes = encode_series_snapshot(windows);
  std::vector<SeriesWindow> decoded;
  const Status status = decode_series_snapshot(bytes, &decoded);
  ASSERT_TRUE(status.ok()) << status.message();
  expect_same_bits(decoded, windows);
  EXPECT_TRUE(decoded[1].binding.variable_names.empty());
  EXPECT_EQ(encode_series_snapshot(decoded), bytes);
}

TEST(SeriesSnapshotTest, EmptySnapshotRoundTrips) {
  const std::string bytes = encode_series_snapshot({});
  EXPECT_EQ(bytes, SnapshotLayout().header(0).sealed());
  std::vector<SeriesWindow> decoded = two_windows();
  ASSERT_TRUE(decode_series_snapshot(bytes, &decoded).ok());
  EXPECT_TRUE(decoded.empty());
}

TEST(SeriesSnapshotTest, EveryTruncationIsRefused) {
  const std::string bytes = encode_series_snapshot(two_windows());
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    SCOPED_TRACE(length);
    const std::string message = refusal_of(bytes.substr(0, length));
    if (length < 28) {
      EXPECT_THAT(message, HasSubstr("truncated at byte " + std::to_string(length)));
    } else {
      EXPECT_THAT(message, HasSubstr("checksum mismatch"));
    }
  }
}

TEST(SeriesSnapshotTest, EveryFlippedByteIsRefused) {
  const std::string bytes = encode_series_snapshot(two_windows());
  for (std::size_t at = 0; at < bytes.size(); ++at) {
    SCOPED_TRACE(at);
    std::string flipped = bytes;
    flipped[at] = static_cast<char>(flipped[at] ^ 0x10);
    const std::string message = refusal_of(flipped);
    if (at < 8) {
      EXPECT_THAT(message, HasSubstr("not a series snapshot"));
    } else if (at < 12) {
      EXPECT_THAT(message, HasSubstr("unknown format version"));
    } else {
      EXPECT_THAT(message, HasSubstr("checksum mismatch"));
    }
  }
}

TEST(SeriesSnapshotTest, UnknownVersionIsNamed) {
  EXPECT_THAT(refusal_of(SnapshotLayout().raw("TSSERIES").u32(7).u64(0).sealed()),
              HasSubstr("unknown format version 7 (this server reads 1)"));
  EXPECT_THAT(refusal_of("PK\x03\x04 not ours at all"), HasSubstr("not a series snapshot"));
  EXPECT_THAT(refusal_of("TSSER"), HasSubstr("truncated at byte 5"));
}

// A window of key `key`, N = 2, 2 points, values 1..4, up to its points.
SnapshotLayout& good_window_head(SnapshotLayout& layout, const std::string& key) {
  return layout.window(key, "m", "", {}, 2, 60, 1000, 2, 2);
}

TEST(SeriesSnapshotTest, BrokenContentUnderAValidChecksumIsRefused) {
  const auto values = [](SnapshotLayout& layout) -> SnapshotLayout& {
    return layout.u64(4).f32(1).f32(2).f32(3).f32(4);
  };
  {
    SnapshotLayout ok;
    ok.header(1);
    good_window_head(ok, "k");
    values(ok);
    std::vector<SeriesWindow> decoded;
    ASSERT_TRUE(decode_series_snapshot(ok.sealed(), &decoded).ok());  // the baseline is good
  }
  struct Case {
    const char* what;
    std::string bytes;
    const char* says;
  };
  std::vector<Case> cases;
  {
    SnapshotLayout l;
    l.header(1);
    good_window_head(l, "k").u64(5).f32(1).f32(2).f32(3).f32(4).f32(5);
    cases.push_back({"value count", l.sealed(), "values hold 5 floats, not points*N=2*2"});
  }
  {
    SnapshotLayout l;
    l.header(1).u32(0xffffffffu).raw("k");
    cases.push_back({"string length", l.sealed(), "truncated at byte"});
  }
  {
    SnapshotLayout l;
    l.header(uint64_t{1} << 62);
    cases.push_back({"window count", l.sealed(), "cannot fit"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "m", "", {}, 1, 60, 1000, int64_t{1} << 40, int64_t{1} << 40);
    l.u64(uint64_t{1} << 40).f32(1);
    cases.push_back({"huge values", l.sealed(), "truncated at byte"});
  }
  {
    SnapshotLayout l;
    l.header(1).u32(0).raw("").u32(1).raw("m").u32(0).u32(0).i64(1).i64(0).i64(0).i64(1).i64(1);
    l.u64(1).f32(1);
    cases.push_back({"empty key", l.sealed(), "empty series_key"});
  }
  {
    SnapshotLayout l;
    l.header(1);
    good_window_head(l, "k")
        .u64(4)
        .f32(1)
        .f32(std::numeric_limits<float>::quiet_NaN())
        .f32(3)
        .f32(4);
    cases.push_back({"NaN", l.sealed(), "values[1] is not finite"});
  }
  {
    SnapshotLayout l;
    l.header(2);
    values(good_window_head(l, "k"));
    values(good_window_head(l, "k"));
    cases.push_back({"repeated key", l.sealed(), "appears twice"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "m", "", {"a", "b", "c"}, 2, 60, 1000, 2, 2);
    values(l);
    cases.push_back({"names", l.sealed(), "3 variable names for N=2"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "m", "", {}, 0, 60, 1000, 2, 2).u64(0);
    cases.push_back({"N", l.sealed(), "N=0"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "", "", {}, 2, 60, 1000, 2, 2);
    values(l);
    cases.push_back({"model", l.sealed(), "empty model"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "m", "", {}, 2, 0, 1000, 2, 2);
    values(l);
    cases.push_back({"step", l.sealed(), "step_seconds 0 for 2 points"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "m", "", {}, 2, 60, 1000, 1, 2);
    values(l);
    cases.push_back({"accepted", l.sealed(), "accepted_total 1 is under its 2 points"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "m", "", {}, 2, 60, 1000, 2, 0).u64(0);
    cases.push_back({"points", l.sealed(), "0 points"});
  }
  {
    SnapshotLayout l;
    l.header(1).window("k", "m", "", {}, 2, int64_t{1} << 62,
                       std::numeric_limits<int64_t>::min() + 1, 2, 2);
    values(l);
    cases.push_back({"times", l.sealed(), "int64 range"});
  }
  {
    SnapshotLayout l;
    l.header(1);
    values(good_window_head(l, "k")).raw("xyz");
    cases.push_back({"trailing", l.sealed(), "3 bytes after the last window"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_THAT(refusal_of(c.bytes), HasSubstr(c.says));
  }
}

// What a store of the default limits reads at most.
const std::size_t kDefaultStoreCap = series_snapshot_max_file_bytes(SeriesStoreLimits{});

// A fresh directory under the system temp dir, removed with the fixture.
class SeriesSnapshotFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "tsserve-live-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }

  static std::string contents(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& entry : fs::directory_iterator(dir_)) {
      out.push_back(entry.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  fs::path dir_;
};

TEST_F(SeriesSnapshotFileTest, WriteThenLoadRestoresTheWindows) {
  const Status written = write_series_snapshot_file(dir_.string(), two_windows());
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_THAT(entries(), ::testing::ElementsAre("series.snapshot"));  // no .tmp left behind
  EXPECT_EQ(contents(dir_ / "series.snapshot"), encode_series_snapshot(two_windows()));
  const SeriesSnapshotLoad load =
      load_series_snapshot(dir_.string(), 1'700'000'000, kDefaultStoreCap);
  expect_same_bits(load.windows, two_windows());
  EXPECT_EQ(load.note, "restored 2 keys from " + (dir_ / "series.snapshot").string());
}

TEST_F(SeriesSnapshotFileTest, WriteReplacesTheOldSnapshot) {
  ASSERT_TRUE(write_series_snapshot_file(dir_.string(), two_windows()).ok());
  ASSERT_TRUE(write_series_snapshot_file(dir_.string(), {two_windows()[1]}).ok());
  const SeriesSnapshotLoad load = load_series_snapshot(dir_.string(), 0, kDefaultStoreCap);
  expect_same_bits(load.windows, {two_windows()[1]});
  EXPECT_THAT(entries(), ::testing::ElementsAre("series.snapshot"));
}

TEST_F(SeriesSnapshotFileTest, WriteCreatesAMissingDirectoryButNotItsParents) {
  const fs::path sub = dir_ / "live";
  ASSERT_TRUE(write_series_snapshot_file(sub.string(), two_windows()).ok());
  EXPECT_EQ(load_series_snapshot(sub.string(), 0, kDefaultStoreCap).windows.size(), 2u);
  const fs::path deep = dir_ / "a" / "b";
  const Status status = write_series_snapshot_file(deep.string(), two_windows());
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_THAT(status.message(), AllOf(HasSubstr(deep.string()), HasSubstr(std::strerror(ENOENT))));
}

TEST_F(SeriesSnapshotFileTest, NoFileOrNoDirectoryStartsEmpty) {
  const SeriesSnapshotLoad load = load_series_snapshot(dir_.string(), 0, kDefaultStoreCap);
  EXPECT_TRUE(load.windows.empty());
  EXPECT_THAT(load.note, HasSubstr("no snapshot at " + (dir_ / "series.snapshot").string()));
  const SeriesSnapshotLoad nowhere =
      load_series_snapshot((dir_ / "missing").string(), 0, kDefaultStoreCap);
  EXPECT_TRUE(nowhere.windows.empty());
  EXPECT_THAT(nowhere.note, HasSubstr("no snapshot at"));
}

TEST_F(SeriesSnapshotFileTest, CorruptFileIsSetAsideAndTheServerStartsEmpty) {
  ASSERT_TRUE(write_series_snapshot_file(dir_.string(), two_windows()).ok());
  std::string bytes = contents(dir_ / "series.snapshot");
  bytes[40] = static_cast<char>(bytes[40] ^ 1);
  std::ofstream(dir_ / "series.snapshot", std::ios::binary | std::ios::trunc) << bytes;

  const SeriesSnapshotLoad load =
      load_series_snapshot(dir_.string(), 1'700'000'123, kDefaultStoreCap);
  EXPECT_TRUE(load.windows.empty());
  const fs::path aside = dir_ / "series.snapshot.corrupt-1700000123";
  EXPECT_THAT(load.note, AllOf(HasSubstr("checksum mismatch"), HasSubstr(aside.string())));
  EXPECT_THAT(entries(), ::testing::ElementsAre("series.snapshot.corrupt-1700000123"));
  EXPECT_EQ(contents(aside), bytes);  // kept as it was, for a look
  EXPECT_THAT(load_series_snapshot(dir_.string(), 0, kDefaultStoreCap).note,
              HasSubstr("no snapshot at"));
}

TEST_F(SeriesSnapshotFileTest, EmptyFileIsSetAsideToo) {
  std::ofstream(dir_ / "series.snapshot").flush();
  const SeriesSnapshotLoad load = load_series_snapshot(dir_.string(), 5, kDefaultStoreCap);
  EXPECT_TRUE(load.windows.empty());
  EXPECT_THAT(load.note, AllOf(HasSubstr("truncated at byte 0"), HasSubstr("corrupt-5")));
  EXPECT_TRUE(fs::exists(dir_ / "series.snapshot.corrupt-5"));
}

TEST_F(SeriesSnapshotFileTest, TheSnapshotIsReadableByItsOwnerOnly) {
  // Whatever the umask allows: the file holds every caller's series.
  const mode_t old_umask = ::umask(0);
  const Status written = write_series_snapshot_file(dir_.string(), two_windows());
  ::umask(old_umask);
  ASSERT_TRUE(written.ok()) << written.message();
  struct stat about {};
  ASSERT_EQ(::stat((dir_ / "series.snapshot").c_str(), &about), 0);
  EXPECT_EQ(about.st_mode & 0777, 0600u);
}

TEST_F(SeriesSnapshotFileTest, ASymlinkPlantedAtTheTemporaryIsNotFollowed) {
  const fs::path target = dir_ / "victim";
  std::ofstream(target) << "untouched";
  fs::create_symlink(target, dir_ / "series.snapshot.tmp");

  const Status written = write_series_snapshot_file(dir_.string(), two_windows());
  ASSERT_TRUE(written.ok()) << written.message();
  EXPECT_EQ(contents(target), "untouched");
  EXPECT_FALSE(fs::is_symlink(dir_ / "series.snapshot"));
  EXPECT_EQ(contents(dir_ / "series.snapshot"), encode_series_snapshot(two_windows()));
  EXPECT_THAT(entries(), ::testing::ElementsAre("series.snapshot", "victim"));
}

TEST_F(SeriesSnapshotFileTest, ALimitFollowsTheStoresBoundsAndSaturates) {
  SeriesStoreLimits limits;
  limits.max_bytes = 1000;
  EXPECT_EQ(series_snapshot_max_file_bytes(limits), 2u * (1000 + 28));
  limits.max_bytes = SIZE_MAX - 10;
  EXPECT_EQ(series_snapshot_max_file_bytes(limits), SIZE_MAX);
}

TEST_F(SeriesSnapshotFileTest, AFileLargerThanTheLimitIsRefusedUnreadAndSetAside) {
  ASSERT_TRUE(write_series_snapshot_file(dir_.string(), two_windows()).ok());
  const std::size_t size = fs::file_size(dir_ / "series.snapshot");
  // A valid snapshot one byte over: refused for its size alone, not decoded.
  const SeriesSnapshotLoad load = load_series_snapshot(dir_.string(), 7, size - 1);
  EXPECT_TRUE(load.windows.empty());
  EXPECT_TRUE(load.unusable);
  EXPECT_THAT(load.note, AllOf(HasSubstr((dir_ / "series.snapshot").string()),
                               HasSubstr("holds " + std::to_string(size) + " bytes"),
                               HasSubstr("limit of " + std::to_string(size - 1) + " bytes"),
                               HasSubstr("corrupt-7")));
  EXPECT_TRUE(fs::exists(dir_ / "series.snapshot.corrupt-7"));

  // Exactly at the limit: read and restored.
  fs::rename(dir_ / "series.snapshot.corrupt-7", dir_ / "series.snapshot");
  EXPECT_EQ(load_series_snapshot(dir_.string(), 8, size).windows.size(), 2u);
}

TEST_F(SeriesSnapshotFileTest, SomethingOtherThanARegularFileIsSetAside) {
  fs::create_directory(dir_ / "series.snapshot");
  const SeriesSnapshotLoad load = load_series_snapshot(dir_.string(), 9, kDefaultStoreCap);
  EXPECT_TRUE(load.unusable);
  EXPECT_THAT(load.note, HasSubstr("is not a regular file"));
}

}  // namespace
}  // namespace tsserve::server
