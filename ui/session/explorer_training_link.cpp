#include "session/explorer_training_link.h"

#include <QObject>
#include <QStringList>

#include <exception>

#include "train/learned_values.h"

namespace poslab::ui {

namespace {
QString joined(const std::vector<std::string>& names) {
  QStringList out;
  for (const auto& n : names) out << QString::fromStdString(n);
  return out.join(QStringLiteral(", "));
}
}  // namespace

poslab::ExperimentSpec trainFromExplorer(const poslab::ExperimentSpec& setup,
                                         const std::string& family,
                                         const std::map<std::string, double>& values) {
  poslab::ExperimentSpec spec = setup;
  spec.families = {family};
  std::map<std::string, double>& params = spec.familyParams[family];
  params.clear();
  for (const auto& [name, value] : values)
    if (!poslab::isModelSizedFamilyParam(name)) params[name] = value;
  return spec;
}

ExplorerValues explorerValuesFromRun(const std::string& family, long long heads, int head,
                                     const std::map<std::string, double>& start,
                                     const poslab::Snapshot& snapshot) {
  ExplorerValues out;
  if (snapshot.position.empty()) {
    out.error = QObject::tr("the run has not reported learned position parameters (yet)");
    return out;
  }
  std::vector<std::string> clamped, unmatched;
  try {
    const poslab::PositionParameters learned =
        head < 0 ? snapshot.position : poslab::headOfParameters(snapshot.position, heads, head);
    out.values = poslab::familyValuesFromLearned(family, start, learned, &clamped, &unmatched);
  } catch (const std::exception& e) {
    out.error = QString::fromStdString(e.what());
    return out;
  }
  out.note = QObject::tr("The explorer shows %1 at step %2, %3")
                 .arg(QString::fromStdString(family))
                 .arg(snapshot.step)
                 .arg(head < 0 ? QObject::tr("mean over layers and heads")
                               : QObject::tr("head %1, mean over layers").arg(head + 1));
  if (!clamped.empty())
    out.note +=
        QObject::tr("; outside the explorer's range, shown at its edge: %1").arg(joined(clamped));
  if (!unmatched.empty())
    out.note += QObject::tr("; learned but not an explorer parameter: %1").arg(joined(unmatched));
  return out;
}

}  // namespace poslab::ui
