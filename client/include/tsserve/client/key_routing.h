#pragma once
// Which replica serves a live series: a key's window lives on one server, so every call
// for the key must reach the same one. Rendezvous (highest random weight) hashing over the
// target list: each target scores hash(key, target) and the highest wins. Unlike a
// hash modulo the list's length, adding or removing one target moves only the keys that
// target wins (about 1/n of them), and the order of the list does not matter.

#include <string>
#include <vector>

namespace tsserve::client {

// FNV-1a 64 over key, a zero byte, then target: stable across machines and builds.
unsigned long long rendezvous_score(const std::string& key, const std::string& target);

// The target `key` goes to. REQUIRES: `targets` not empty.
const std::string& target_for_key(const std::string& key, const std::vector<std::string>& targets);

}  // namespace tsserve::client
