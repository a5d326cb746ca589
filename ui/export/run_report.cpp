#include "export/run_report.h"

#include <qcustomplot.h>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QSaveFile>
#include <QSet>

#include <cmath>

#include "export/plot_export.h"

namespace poslab::ui {

namespace {
constexpr int kFigureWidth = 960;  // logical pixels: readable on a page and in a README
constexpr int kFigureHeight = 420;
constexpr double kFigureScale = 2;  // PNG pixels per logical pixel (sharp on high-DPI screens)

QString writeText(const QString& path, const QByteArray& bytes) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
    return QObject::tr("cannot write %1: %2").arg(path, f.errorString());
  return {};
}

QString metric(double v) {
  return std::isfinite(v) ? QString::number(v, 'f', 4) : QStringLiteral("–");
}
}  // namespace

QString runReportFolder(const QString& markdownPath) {
  const QFileInfo info(markdownPath);
  return info.dir().filePath(info.completeBaseName() + "_figures");
}

QString writeRunReport(const RunReportContent& report, const QString& markdownPath,
                       QStringList* written) {
  const QFileInfo info(markdownPath);
  if (info.fileName().isEmpty()) return QObject::tr("no report file name given");
  const QString folder = runReportFolder(markdownPath);
  const QString folderName = QFileInfo(folder).fileName();
  if (!QDir().mkpath(folder)) return QObject::tr("cannot create the figure folder %1").arg(folder);
  QStringList files;

  // Figures first: the Markdown links to them.
  QString figures;
  QSet<QString> used;
  for (QCustomPlot* plot : report.plots) {
    QString stem = plotBaseName(plot);
    for (int n = 2; used.contains(stem); ++n) stem = plotBaseName(plot) + QString::number(n);
    used.insert(stem);
    const QString file = stem + ".png";
    const QString problem = exportPlotImage(plot, QDir(folder).filePath(file),
                                            {kFigureWidth, kFigureHeight, kFigureScale});
    if (!problem.isEmpty()) return problem;
    files << QDir(folder).filePath(file);
    figures += QStringLiteral("### %1\n\n![%1](%2/%3)\n\n").arg(stem, folderName, file);
  }

  const poslab::ExperimentSpec& spec = report.experiment;
  const std::string setupJson = poslab::experimentToJson(spec).dump(2);  // a preset file
  const QString jsonPath = QDir(folder).filePath("setup.json");
  if (QString p = writeText(jsonPath, QByteArray::fromStdString(setupJson + "\n")); !p.isEmpty())
    return p;
  files << jsonPath;

  QString md;
  md += QObject::tr("# PosLab run report\n\n");
  const QString version = QCoreApplication::applicationVersion();
  md += QObject::tr("Written %1 by PosLab%2.\n\n")
            .arg(QDateTime::currentDateTime().toString(Qt::ISODate),
                 version.isEmpty() ? QString() : ' ' + version);
  md += QObject::tr("## Setup\n\n");
  QStringList families;
  for (const auto& f : spec.families) families << QString::fromStdString(f);
  const auto& c = spec.base;
  md += QObject::tr(
            "- task: %1, train length %2\n- families: %3\n- steps: %4 (reached %5), batch %6, "
            "peak lr %7, seed %8\n- evaluation lengths: %9\n")
            .arg(QString::fromStdString(c.task.id))
            .arg(c.task.trainLength)
            .arg(families.join(", "))
            .arg(c.run.steps)
            .arg(report.step)
            .arg(c.optim.batch)
            .arg(c.optim.lr)
            .arg(c.run.seed)
            .arg([&] {
              QStringList l;
              for (long long n : c.run.evalLengths) l << QString::number(n);
              return l.join(", ");
            }());
  md += QObject::tr("- attention path: %1, metrics read every %2 step(s)\n")
            .arg(QString::fromStdString(c.run.attention))
            .arg(c.run.metricsEvery);
  if (!report.status.isEmpty()) md += QObject::tr("- status: %1\n").arg(report.status);
  md += '\n';

  md += QObject::tr("## Latest evaluation\n\n");
  QString rows;
  for (const RunReportContent::Run& run : report.runs)
    for (const poslab::EvalResult& e : run.latestEval)
      rows += QStringLiteral("| %1 | %2 | %3 | %4 | %5 |\n")
                  .arg(QString::fromStdString(run.family))
                  .arg(run.step)
                  .arg(e.length)
                  .arg(metric(e.accuracy), metric(e.loss));
  if (rows.isEmpty()) {
    md += QObject::tr(
              "No evaluation yet (press Play; runs evaluate every %1 steps and at the end).\n\n")
              .arg(c.run.evalEvery);
  } else {
    md += QObject::tr("| family | step | length | accuracy | loss |\n|---|---:|---:|---:|---:|\n");
    md += rows + '\n';
  }

  md += QObject::tr("## Figures\n\n") + figures;
  md += QObject::tr("## Training setup (JSON)\n\nAlso in `%1/setup.json`.\n\n```json\n%2\n```\n")
            .arg(folderName, QString::fromStdString(setupJson));
  if (QString p = writeText(markdownPath, md.toUtf8()); !p.isEmpty()) return p;
  files.prepend(markdownPath);
  if (written) *written = files;
  return {};
}

}  // namespace poslab::ui
