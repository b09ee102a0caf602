// The main of a fuzz target outside libFuzzer: runs the target once on every file named
// on the command line or found (recursively, in name order) under a directory named
// there. A broken invariant or a sanitizer report aborts, so the test fails on the input
// it was running, whose path is printed first.
//
//   fuzz_replay_<target> tests/fuzz/corpus/<target> tests/fuzz/regressions/<target>
//
// Exits 1 when an argument does not exist or no input was found at all: a replay test
// that silently ran nothing would pass while checking nothing.

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "fuzz_target.h"

namespace {

namespace fs = std::filesystem;

bool collect(const fs::path& path, std::vector<fs::path>* inputs) {
  std::error_code error;
  if (fs::is_regular_file(path, error)) {
    inputs->push_back(path);
    return true;
  }
  if (!fs::is_directory(path, error)) {
    std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", path.c_str());
    return false;
  }
  std::vector<fs::path> found;
  for (const auto& entry : fs::recursive_directory_iterator(path)) {
    if (entry.is_regular_file()) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  inputs->insert(inputs->end(), found.begin(), found.end());
  return true;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    if (!collect(argv[i], &inputs)) return 1;
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs found; give corpus files or directories\n");
    return 1;
  }
  for (const fs::path& input : inputs) {
    std::fprintf(stderr, "replay: %s\n", input.c_str());
    const std::string bytes = read_file(input);
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("replay: %zu inputs ran without a broken invariant or sanitizer report\n",
              inputs.size());
  return 0;
}
