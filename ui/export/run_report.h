// The run report: one Markdown file describing the live-training tab as it stands, beside a
// folder of its figures. The figures are the plots it is given (the training tab's, all of
// them: TrainingPanel::plots()), as PNG; the report holds the latest evaluation per family and
// length as a table and the training setup as JSON (also written to the folder as setup.json,
// loadable as a preset file).
#pragma once

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "train/experiment_spec.h"  // plain data, no torch
#include "train/snapshot.h"         // EvalResult: plain data, no torch

class QCustomPlot;

namespace poslab::ui {

// What a report shows: the running experiment (what ran, not what the controls say now), its
// runs' progress and latest evaluations, and the plots, drawn up to date.
struct RunReportContent {
  std::vector<QCustomPlot*> plots;  // each becomes a figure, named by plotBaseName
  poslab::ExperimentSpec experiment;
  long long step = 0;  // the smallest step any run reached
  QString status;      // the training tab's status line (empty: none)
  struct Run {
    std::string family;
    long long step = 0;
    std::vector<poslab::EvalResult> latestEval;  // empty before the first evaluation
  };
  std::vector<Run> runs;
};

// The folder the figures of `markdownPath` go to: "runs/report.md" -> "runs/report_figures".
QString runReportFolder(const QString& markdownPath);

// Writes the report and its folder. Returns an empty string on success, else what failed (the
// Markdown file is written last, so a failed report never points at missing figures). The
// written files' paths go to *written when given.
QString writeRunReport(const RunReportContent& report, const QString& markdownPath,
                       QStringList* written = nullptr);

}  // namespace poslab::ui
