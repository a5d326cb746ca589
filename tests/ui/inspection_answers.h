// Reading a run's or controller's `inspected` signals in tests: other views ask for their own
// kinds (attention, samples) whenever a run steps, so a test picks out the answers of its kind.
#pragma once

#include <QSignalSpy>
#include <QTest>

#include <optional>
#include <string>
#include <vector>

#include "bridge/inspection.h"

namespace poslab::ui::test {

// The answers of `kind` the spy has seen so far, in order.
template <class Result>
std::vector<Result> answersOf(const QSignalSpy& spy, const std::string& kind) {
  std::vector<Result> out;
  for (const auto& args : spy) {
    const auto r = args.at(1).value<InspectionResult>();
    if (r.kind == kind) out.push_back(r.value.value<Result>());
  }
  return out;
}

// The first answer of `kind`, waiting up to `timeoutMs` for it; nullopt if none came.
template <class Result>
std::optional<Result> awaitAnswer(const QSignalSpy& spy, const std::string& kind, int timeoutMs) {
  QTest::qWaitFor([&] { return !answersOf<Result>(spy, kind).empty(); }, timeoutMs);
  const std::vector<Result> answers = answersOf<Result>(spy, kind);
  if (answers.empty()) return std::nullopt;
  return answers.front();
}

}  // namespace poslab::ui::test
