#pragma once
// The one exception type the model library throws for user-facing problems (bad
// checkpoint, bad config, bad input shape). Its message is written for the person who
// supplied the file or the input: what was wrong and what was expected.

#include <stdexcept>
#include <string>

namespace tsserve::model {

class ModelError : public std::runtime_error {
 public:
  explicit ModelError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace tsserve::model
