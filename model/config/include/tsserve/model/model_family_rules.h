#pragma once
// A model family's part in its config, written in the family's folder
// (model/families/<f>/) and registered from there: the config library knows no family by
// name. parse_model_config reads the shared keys, then asks the family named by "model"
// for its defaults, its own keys and its checks; the summary and check_family_of_keys
// (state_dict_loading.h) ask it too. The build links every family folder whole
// (TSSERVE_FAMILIES in the top CMakeLists.txt), so each one's registrar runs at start-up.
//
// No LibTorch in this header.

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "tsserve/model/config_keys.h"

namespace tsserve::model {

struct ModelConfig;

struct ModelFamilyRules {
  // TSLib's name for the family, the config's "model": "PatchTST", "Informer", ...
  std::string name;
  // Before the config's keys are read: the family's defaults where they differ from the
  // shared ones (model_config.h). May be null.
  void (*apply_defaults)(ModelConfig& config) = nullptr;
  // After the shared keys: the family's own keys and what it derives from them. May be null.
  void (*read_keys)(const ConfigKeys& keys, ModelConfig& config) = nullptr;
  // The family's own rules, after the shared sizes passed: "" when valid, else the message
  // naming the field. May be null.
  std::string (*check)(const ModelConfig& config) = nullptr;
  // The summary's middle, between "model=<name> " and " attention=...": the sizes
  // (summarise_sizes, model_config.h) and what the family adds. May be null (the sizes
  // alone).
  void (*summarise)(const ModelConfig& config, std::ostream& out) = nullptr;
  // Whether a forecast of this config reads the timestamps of its window (calendar
  // tokens, time marks): tsserve-calibrate then needs the dataset's dates. May be null
  // (never).
  bool (*reads_timestamps)(const ModelConfig& config) = nullptr;
  // Checkpoint keys that tell this family's state_dicts from other families' (a key two
  // families share names both: check_family_of_keys says "an Informer's or a
  // Transformer's" and lets either through).
  std::vector<std::string> checkpoint_markers;
};

// Adds a family; a second family of the same name is a std::logic_error (a build that
// links one folder twice). Called by a family's registrar, before main.
void register_model_family(ModelFamilyRules rules);

// Every registered family, by name (a stable order for messages).
std::vector<const ModelFamilyRules*> model_family_rules();

// The family named `name`, or null when this build registers none by that name.
const ModelFamilyRules* find_model_family(const std::string& name);

// The names of the registered families, quoted, by name: "\"Informer\", \"PatchTST\", ...".
std::string registered_family_names();

// Registers `rules` when constructed: one static instance in the family's folder.
struct ModelFamilyRegistrar {
  explicit ModelFamilyRegistrar(ModelFamilyRules rules) { register_model_family(std::move(rules)); }
};

}  // namespace tsserve::model
