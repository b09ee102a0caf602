#include "tsserve/client/npy_file.h"

#include <gtest/gtest.h>

#include <fstream>

namespace tsserve::client {
namespace {

std::string temp(const std::string& name) { return ::testing::TempDir() + "npy_file_test_" + name; }

TEST(NpyFileTest, RoundTripsShapeAndValues) {
  const TensorData data{{2, 3}, {1, 2, 3, 4.5f, -5, 6e-8f}};
  write_npy(temp("a.npy"), data);
  const TensorData back = read_npy(temp("a.npy"));
  EXPECT_EQ(back.shape, data.shape);
  EXPECT_EQ(back.values, data.values);
  write_npy(temp("b.npy"), {{4}, {1, 2, 3, 4}});
  EXPECT_EQ(read_npy(temp("b.npy")).shape, (std::vector<int64_t>{4}));
}

TEST(NpyFileTest, HeaderIsNumpysLayout) {
  write_npy(temp("c.npy"), {{2, 3}, {1, 2, 3, 4, 5, 6}});
  std::ifstream file(temp("c.npy"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 128u + 24u);  // header padded to 64 bytes, then 6 floats
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_NE(bytes.find("'descr': '<f4', 'fortran_order': False, 'shape': (2, 3,)"), std::string::npos);
  EXPECT_EQ(bytes[127], '\n');
}

TEST(NpyFileTest, RejectsWhatItCannotRead) {
  std::ofstream(temp("bad.npy")) << "not numpy";
  EXPECT_THROW(read_npy(temp("bad.npy")), std::invalid_argument);
  std::string header = "{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }";
  std::ofstream(temp("int.npy"), std::ios::binary)
      << std::string("\x93NUMPY\x01\x00", 8) << static_cast<char>(header.size()) << '\0' << header;
  try {
    read_npy(temp("int.npy"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("float32 ('<f4') or float64"), std::string::npos);
  }
}

}  // namespace
}  // namespace tsserve::client
