#pragma once
// What a model repository directory holds, read once (no model is loaded here):
//
//   DIR/<name>/model.json               optional serving settings (model_settings.h)
//   DIR/<name>/<version>/config.json    the model config (as for --model-config)
//   DIR/<name>/<version>/model.pt       the checkpoint: model.pt | model.pth | model.safetensors
//
// <name> is the served model name (letters, digits, '.', '_', '-'; not starting with '.').
// <version> is a positive integer without leading zeros, as in Triton's layout.
// Entries starting with '.' are skipped at both levels, so a version can be staged as
// DIR/<name>/.incoming and renamed into place (a rename is atomic; a half-written
// version folder would otherwise be seen and refused). Plain files in DIR are skipped.
//
// Every problem refuses the smallest thing it concerns, naming the path and the reason,
// and the rest is served:
//   - a version folder: a name that is not a positive integer, no config.json, no
//     checkpoint or more than one, a file that cannot be read, a config.json that is not a
//     JSON object or whose "name" is not the folder's name (the folder name is the served
//     name; a config naming another model is more likely a copy error than a rename);
//   - a model folder: a bad name, an unreadable or invalid model.json, or a name that
//     differs from another only in case: gRPC names are case-sensitive but people and
//     filesystems (macOS, Windows volumes) are not, so which one a caller meant is a
//     guess; both are refused rather than one chosen by sort order.
// The config's own "version" is a label; the folder's number is the served version.
//
// No gRPC, no LibTorch. Thread safety: scan_repository is a pure function of the files.

#include <cstdint>
#include <string>
#include <vector>

#include "server/repository/model_settings.h"

namespace tsserve::server {

struct RepositoryVersion {
  int64_t version = 0;
  std::string directory;
  std::string checkpoint;  // directory/model.pt|model.pth|model.safetensors
  std::string config;      // directory/config.json
  // Sizes and modification times of the two files: a version that failed to load is
  // tried again only when this changed (the operator replaced a file).
  std::string fingerprint;
};

struct RepositoryModel {
  std::string name;
  std::string directory;
  ModelSettings settings;
  std::vector<RepositoryVersion> versions;  // every valid version folder, ascending

  // The versions the model's policy serves, of the valid ones (ascending).
  std::vector<int64_t> selected_versions() const;
  // REQUIRES: `version` is in versions.
  const RepositoryVersion& version(int64_t version) const;
};

struct RepositoryRefusal {
  std::string model;   // the model folder it concerns; "" for the repository itself
  std::string path;    // the file or folder at fault
  std::string reason;  // what is wrong and what was expected
  // "PATH: REASON", for a log line or an RPC's message.
  std::string message() const { return path + ": " + reason; }
};

struct RepositoryScan {
  std::vector<RepositoryModel> models;  // by name, ascending
  std::vector<RepositoryRefusal> refusals;

  const RepositoryModel* find(const std::string& name) const;
};

// A version folder's name, and model_version in requests: a positive integer without
// leading zeros (so "1" and "01" cannot both name version 1). False for anything else.
bool parse_version_number(const std::string& text, int64_t* version);

// Reads `directory` as above. Never throws; a missing or unreadable `directory` is one
// refusal with no model.
RepositoryScan scan_repository(const std::string& directory);

}  // namespace tsserve::server
