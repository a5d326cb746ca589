// The run report: one Markdown file describing the live-training tab as it stands, beside a
// folder of its figures. The figures are every QCustomPlot inside the training panel (found by
// findChildren, so plots added to the panel later are included), as PNG; the report holds the
// latest evaluation per family and length as a table and the training setup as JSON (also
// written to the folder as setup.json, loadable as a preset file).
#pragma once

#include <QString>
#include <QStringList>

namespace poslab::ui {

class TrainingPanel;

// The folder the figures of `markdownPath` go to: "runs/report.md" -> "runs/report_figures".
QString runReportFolder(const QString& markdownPath);

// Writes the report and its folder. Returns an empty string on success, else what failed (the
// Markdown file is written last, so a failed report never points at missing figures). The
// written files' paths go to *written when given.
QString writeRunReport(TrainingPanel* panel, const QString& markdownPath,
                       QStringList* written = nullptr);

}  // namespace poslab::ui
