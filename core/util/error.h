// Errors raised by the core library. The library never calls exit(): every failure is an
// exception that says what failed, where, and (when there is one) what to do about it.
#pragma once

#include <stdexcept>
#include <string>

namespace poslab {

class Error : public std::runtime_error {
 public:
  // what: the problem ("gamma = nan is not finite"); hint: how to fix it (may be empty).
  explicit Error(const std::string& what, std::string hint = {})
      : std::runtime_error(hint.empty() ? what : what + " (" + hint + ")"),
        hint_(std::move(hint)) {}
  const std::string& hint() const { return hint_; }

 private:
  std::string hint_;
};

// A parameter or argument outside its allowed set.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A computation that would overflow, lose its precision, or not fit in memory.
class NumericalRangeError : public Error {
 public:
  using Error::Error;
};

}  // namespace poslab
