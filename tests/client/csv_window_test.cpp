#include "tsserve/csv/csv_window.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

namespace tsserve::csv {
namespace {

class CsvWindowTest : public ::testing::Test {
 protected:
  std::string write(const std::string& text) {
    path_ = ::testing::TempDir() + "csv_window_test_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".csv";
    std::ofstream(path_) << text;
    return path_;
  }
  void TearDown() override { std::remove(path_.c_str()); }
  std::string path_;
};

constexpr char kEtt[] =
    "date,HUFL,OT\n"
    "2016-07-01 00:00:00,5.8,30.5\n"
    "2016-07-01 01:00:00,5.7,27.8\n"
    "2016-07-01 02:00:00,5.2,27.7\n";

TEST_F(CsvWindowTest, TakesTheLastRowsOfEveryNumericColumnAndKeepsTheDates) {
  const CsvWindow window = read_csv_window(write(kEtt), {{}, 2});
  EXPECT_EQ(window.columns, (std::vector<std::string>{"HUFL", "OT"}));
  EXPECT_EQ(window.values, (std::vector<std::vector<double>>{{5.7, 5.2}, {27.8, 27.7}}));
  EXPECT_EQ(window.label_column, "date");
  EXPECT_EQ(window.row_labels,
            (std::vector<std::string>{"2016-07-01 01:00:00", "2016-07-01 02:00:00"}));
}

TEST_F(CsvWindowTest, ColumnsByNameInTheOrderAsked) {
  const CsvWindow window = read_csv_window(write(kEtt), {{"OT", "HUFL"}, 0});
  EXPECT_EQ(window.columns, (std::vector<std::string>{"OT", "HUFL"}));
  EXPECT_EQ(window.values[0], (std::vector<double>{30.5, 27.8, 27.7}));
}

TEST_F(CsvWindowTest, QuotedCellsCrlfAndBlankLines) {
  const CsvWindow window =
      read_csv_window(write("\"a,b\",x\r\n\"1,5\",\"2.5\"\r\n\r\nq,3\r\n"), {{"x"}, 0});
  EXPECT_EQ(window.values[0], (std::vector<double>{2.5, 3}));
  EXPECT_EQ(split_csv_line("\"say \"\"hi\"\"\", 2 "), (std::vector<std::string>{"say \"hi\"", "2"}));
}

void expect_error(const std::function<void()>& read, size_t line, const std::string& column,
                  const std::string& text) {
  try {
    read();
    FAIL() << "no error; expected: " << text;
  } catch (const CsvError& e) {
    EXPECT_EQ(e.line(), line) << e.what();
    EXPECT_EQ(e.column(), column) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

TEST_F(CsvWindowTest, ErrorsNameTheLineAndTheColumn) {
  const std::string bad_cell = write(std::string(kEtt) + "2016-07-01 03:00:00,n/a,27.1\n");
  expect_error([&] { read_csv_window(bad_cell, {{}, 2}); }, 5, "HUFL",
               "line 5, column 'HUFL': 'n/a' is not a finite number");
  const std::string ragged = write(std::string(kEtt) + "2016-07-01 03:00:00,5.1\n");
  expect_error([&] { read_csv_window(ragged, {{}, 2}); }, 5, "", "line 5 has 2 cells; the header has 3");
  expect_error([&] { read_csv_window(write(kEtt), {{}, 10}); }, 0, "",
               "has 3 data rows; 10 are needed");
  expect_error([&] { read_csv_window(write(kEtt), {{"MULL"}, 0}); }, 1, "MULL",
               "no column named 'MULL' (the header has: date, HUFL, OT)");
  expect_error([&] { read_csv_window(write(""), {{}, 0}); }, 1, "", "empty file");
  expect_error([&] { read_csv_window(write("a,b\n"), {{}, 0}); }, 1, "", "no data rows");
  expect_error([&] { read_csv_window(write("a,b\nx,y\n"), {{}, 0}); }, 2, "", "no numeric column");
  expect_error([&] { read_csv_window(write("a\ninf\n"), {{"a"}, 0}); }, 2, "a", "'inf' is not a finite");
  expect_error([&] { read_csv_window("/nonexistent/x.csv", {{}, 0}); }, 0, "", "cannot be opened");
}

}  // namespace
}  // namespace tsserve::csv
