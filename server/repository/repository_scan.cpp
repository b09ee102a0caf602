#include "server/repository/repository_scan.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>

namespace tsserve::server {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCheckpointNames[] = {"model.pt", "model.pth", "model.safetensors"};

bool hidden(const fs::path& path) { return path.filename().string().rfind('.', 0) == 0; }

bool valid_model_name(const std::string& name) {
  if (name.empty() || name.front() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The whole file into *text, or FAILED_PRECONDITION saying why it cannot be read.
Status read_text(const fs::path& path, std::string* text) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream contents;
  if (file) contents << file.rdbuf();
  if (!file || file.bad()) {
    return {StatusCode::kFailedPrecondition,
            "cannot be read (" + std::string(std::strerror(errno)) + ")"};
  }
  *text = contents.str();
  return Status();
}

// OK when the file opens and its first byte reads, else FAILED_PRECONDITION saying why not.
// A checkpoint is read in full only by the loader; this catches permissions and
// directories named like files.
Status readable(const fs::path& path) {
  const auto unreadable = [](std::string why) {
    return Status(StatusCode::kFailedPrecondition, std::move(why));
  };
  std::error_code code;
  if (!fs::is_regular_file(path, code)) return unreadable("is not a regular file");
  std::ifstream file(path, std::ios::binary);
  if (!file) return unreadable("cannot be read (" + std::string(std::strerror(errno)) + ")");
  if (fs::file_size(path, code) == 0) return unreadable("is empty");
  char byte = 0;
  if (!file.read(&byte, 1)) return unreadable("cannot be read");
  return Status();
}

std::string fingerprint(const fs::path& file) {
  std::error_code code;
  const auto size = fs::file_size(file, code);
  const auto time = fs::last_write_time(file, code);
  return std::to_string(size) + "@" + std::to_string(time.time_since_epoch().count());
}

// The entries of `directory` in name order (the filesystem's order is unspecified, and
// refusals should read the same on every scan). `code` is set when it cannot be listed.
std::vector<fs::directory_entry> sorted_entries(const fs::path& directory, std::error_code& code) {
  std::vector<fs::directory_entry> entries;
  for (fs::directory_iterator it(directory, code), end; !code && it != end; it.increment(code))
    entries.push_back(*it);
  std::sort(entries.begin(), entries.end());
  return entries;
}

// One version folder: the version, or a refusal.
bool read_version(const std::string& model, const fs::path& directory, int64_t number,
                  RepositoryVersion& version, std::vector<RepositoryRefusal>& refusals) {
  auto refuse = [&](const fs::path& path, std::string reason) {
    refusals.push_back({model, path.string(), std::move(reason)});
    return false;
  };
  std::vector<fs::path> checkpoints;
  for (const char* name : kCheckpointNames) {
    std::error_code code;
    if (fs::exists(directory / name, code)) checkpoints.push_back(directory / name);
  }
  if (checkpoints.empty())
    return refuse(directory, "no checkpoint; expected model.pt, model.pth or model.safetensors");
  if (checkpoints.size() > 1) {
    return refuse(directory, "more than one checkpoint (" + checkpoints[0].filename().string() +
                                 ", " + checkpoints[1].filename().string() +
                                 "); expected exactly one, so which is served is not a guess");
  }
  const fs::path config = directory / "config.json";
  std::error_code code;
  if (!fs::exists(config, code))
    return refuse(config, "missing; every version needs its model config");
  if (const Status problem = readable(checkpoints[0]); !problem.ok())
    return refuse(checkpoints[0], problem.message());
  std::string text;
  if (const Status read = read_text(config, &text); !read.ok())
    return refuse(config, read.message());
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text, nullptr, true, /*ignore_comments=*/true);
  } catch (const nlohmann::json::exception& parse_error) {
    return refuse(config, std::string("not JSON: ") + parse_error.what());
  }
  if (!json.is_object()) return refuse(config, "expected a JSON object (the model config)");
  if (auto it = json.find("name"); it != json.end() && *it != model) {
    return refuse(config, "\"name\" is " + it->dump() + " but the folder serves \"" + model +
                              "\"; the folder name is the served name: rename one to match");
  }
  version.version = number;
  version.directory = directory.string();
  version.checkpoint = checkpoints[0].string();
  version.config = config.string();
  version.fingerprint = fingerprint(checkpoints[0]) + "," + fingerprint(config);
  return true;
}

// One model folder: the model (perhaps with no valid version), or a refusal.
bool read_model(const std::string& name, const fs::path& directory, RepositoryModel& model,
                std::vector<RepositoryRefusal>& refusals) {
  model.name = name;
  model.directory = directory.string();
  const fs::path settings = directory / "model.json";
  std::error_code code;
  if (fs::exists(settings, code)) {
    std::string text;
    Status read = read_text(settings, &text);
    if (read.ok()) {
      ModelSettingsResult parsed = parse_model_settings(text);
      read = parsed.status;
      model.settings = parsed.settings;
    }
    if (!read.ok()) {
      refusals.push_back({name, settings.string(), read.message() + "; the model is not served"});
      return false;
    }
  }
  const std::vector<fs::directory_entry> entries = sorted_entries(directory, code);
  if (code) {
    refusals.push_back({name, directory.string(), "cannot be listed (" + code.message() + ")"});
    return false;
  }
  for (const fs::directory_entry& entry : entries) {
    if (hidden(entry.path()) || !entry.is_directory(code)) continue;
    const std::string folder = entry.path().filename().string();
    int64_t number = 0;
    if (!parse_version_number(folder, &number)) {
      refusals.push_back({name, entry.path().string(),
                          "not a version folder; expected a positive integer without leading "
                          "zeros (1, 2, ...)"});
      continue;
    }
    RepositoryVersion version;
    if (read_version(name, entry.path(), number, version, refusals))
      model.versions.push_back(std::move(version));
  }
  std::sort(
      model.versions.begin(), model.versions.end(),
      [](const RepositoryVersion& a, const RepositoryVersion& b) { return a.version < b.version; });
  if (model.versions.empty()) {
    refusals.push_back({name, directory.string(), "no valid version folder; nothing to serve"});
  }
  return true;
}

}  // namespace

bool parse_version_number(const std::string& text, int64_t* version) {
  if (text.empty() || text.size() > 18 || text.front() == '0') return false;
  if (!std::all_of(text.begin(), text.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return false;
  *version = std::stoll(text);
  return true;
}

std::vector<int64_t> RepositoryModel::selected_versions() const {
  std::vector<int64_t> available;
  for (const RepositoryVersion& entry : versions) available.push_back(entry.version);
  return settings.version_policy.select(available);
}

const RepositoryVersion& RepositoryModel::version(int64_t number) const {
  return *std::find_if(versions.begin(), versions.end(),
                       [&](const RepositoryVersion& entry) { return entry.version == number; });
}

const RepositoryModel* RepositoryScan::find(const std::string& name) const {
  for (const RepositoryModel& model : models)
    if (model.name == name) return &model;
  return nullptr;
}

RepositoryScan scan_repository(const std::string& directory) {
  RepositoryScan scan;
  std::error_code code;
  if (!fs::is_directory(directory, code)) {
    scan.refusals.push_back({"", directory, "not a directory; expected DIR/<name>/<version>/"});
    return scan;
  }
  const std::vector<fs::directory_entry> entries = sorted_entries(directory, code);
  if (code) {
    scan.refusals.push_back({"", directory, "cannot be listed (" + code.message() + ")"});
    return scan;
  }
  // Folder names by their case-folded spelling, to find the colliding ones.
  std::map<std::string, std::vector<fs::path>> spellings;
  for (const fs::directory_entry& entry : entries) {
    if (hidden(entry.path()) || !entry.is_directory(code)) continue;
    const std::string name = entry.path().filename().string();
    if (!valid_model_name(name)) {
      scan.refusals.push_back({name, entry.path().string(),
                               "not a model name; expected letters, digits, '.', '_' or '-'"});
      continue;
    }
    spellings[lower(name)].push_back(entry.path());
  }
  for (auto& [folded, paths] : spellings) {
    std::sort(paths.begin(), paths.end());
    if (paths.size() > 1) {
      for (const fs::path& path : paths) {
        std::string others;
        for (const fs::path& other : paths)
          if (other != path) others += (others.empty() ? "" : ", ") + other.filename().string();
        scan.refusals.push_back({path.filename().string(), path.string(),
                                 "collides with " + others +
                                     " (names differing only in case); neither is served: "
                                     "rename one"});
      }
      continue;
    }
    RepositoryModel model;
    if (read_model(paths[0].filename().string(), paths[0], model, scan.refusals))
      scan.models.push_back(std::move(model));
  }
  std::sort(scan.models.begin(), scan.models.end(),
            [](const RepositoryModel& a, const RepositoryModel& b) { return a.name < b.name; });
  return scan;
}

}  // namespace tsserve::server
