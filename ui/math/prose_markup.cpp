#include "math/prose_markup.h"

#include <QRegularExpression>
#include <QStringList>

#include <vector>

#include "math/formula_markup.h"
#include "math/formula_unicode.h"

namespace poslab::ui {

namespace {

struct Piece {
  QString text;
  bool formula = false;
};

// One paragraph cut at its unescaped dollar signs; "\$" becomes "$" in prose.
std::vector<Piece> pieces(const QString& paragraph) {
  std::vector<Piece> out;
  QString run;
  bool inFormula = false;
  for (int k = 0; k < paragraph.size(); ++k) {
    const QChar c = paragraph[k];
    if (c == '\\' && k + 1 < paragraph.size() && paragraph[k + 1] == '$') {
      run += '$';
      ++k;
      continue;
    }
    if (c == '$') {
      out.push_back({run, inFormula});
      run.clear();
      inFormula = !inFormula;
      continue;
    }
    run += c;
  }
  if (inFormula) {  // unclosed: the dollar sign and what follows are prose
    run = "$" + run;
    inFormula = false;
  }
  out.push_back({run, inFormula});
  return out;
}

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
    for (const Piece& piece : pieces(p))
      html += piece.formula ? formulaToHtml(*parseFormula(piece.text)) : piece.text.toHtmlEscaped();
    html += QStringLiteral("</p>");
  }
  return html;
}

QString proseToPlainText(const QString& text) {
  QStringList lines;
  for (const QString& p : paragraphs(text)) {
    QString line;
    for (const Piece& piece : pieces(p))
      line += piece.formula ? formulaToUnicode(piece.text) : piece.text;
    lines << line;
  }
  return lines.join('\n');
}

}  // namespace poslab::ui
