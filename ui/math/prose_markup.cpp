#include "math/prose_markup.h"

#include <QRegularExpression>
#include <QStringList>

#include "math/formula_markup.h"
#include "math/formula_unicode.h"
#include "util/prose_segments.h"

namespace poslab::ui {

namespace {

QStringList paragraphs(const QString& text) {
  QStringList out;
  for (const QString& p : text.split(QRegularExpression(QStringLiteral("\\n\\s*\\n")))) {
    const QString joined = p.simplified();
    if (!joined.isEmpty()) out << joined;
  }
  return out;
}

}  // namespace

QString proseToHtml(const QString& text) {
  QString html;
  for (const QString& p : paragraphs(text)) {
    html += QStringLiteral("<p>");
    for (const ProseSegment& piece : splitProse(p.toStdString())) {
      const QString run = QString::fromStdString(piece.text);
      html += piece.isMath ? formulaToHtml(*parseFormula(run)) : run.toHtmlEscaped();
    }
    html += QStringLiteral("</p>");
  }
  return html;
}

QString proseToPlainText(const QString& text) {
  QStringList lines;
  for (const QString& p : paragraphs(text)) {
    QString line;
    for (const ProseSegment& piece : splitProse(p.toStdString())) {
      const QString run = QString::fromStdString(piece.text);
      line += piece.isMath ? formulaToUnicode(run) : run;
    }
    lines << line;
  }
  return lines.join('\n');
}

}  // namespace poslab::ui
