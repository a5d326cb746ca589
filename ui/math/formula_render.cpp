#include "math/formula_render.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <vector>

#include "math/formula_markup.h"

namespace poslab::ui {

namespace {

constexpr qreal kScriptScale = 0.72;   // each script level's size relative to its base
constexpr qreal kMinScale = 0.5;       // scripts of scripts stop shrinking here
constexpr qreal kFractionScale = 0.9;  // numerator and denominator of an inline fraction
constexpr qreal kSupRaise = 0.42;      // superscript baseline above the base's, x base ascent
constexpr qreal kSubDrop = 0.22;       // subscript baseline below the base's, x base ascent
constexpr qreal kFractionGap = 0.12;   // space between the rule and num/den, x font height
constexpr qreal kRuleWidth = 0.06;     // fraction rule thickness, x font height (at least 1 px)

// One thing to paint, placed relative to the box's origin (left end of its baseline).
struct Piece {
  QPointF at;
  QString text;  // empty: a rule
  QFont font;
  QRectF rule;
};

// A laid-out box: width, height above and below the baseline, and what it paints.
struct Box {
  qreal width = 0, ascent = 0, descent = 0;
  std::vector<Piece> pieces;

  void append(const Box& b, qreal dx, qreal dy) {  // dy > 0 moves b down
    for (Piece p : b.pieces) {
      p.at += QPointF(dx, dy);
      p.rule.translate(dx, dy);
      pieces.push_back(std::move(p));
    }
    ascent = std::max(ascent, b.ascent - dy);
    descent = std::max(descent, b.descent + dy);
  }
  void appendRight(const Box& b) {
    append(b, width, 0);
    width += b.width;
  }
};

bool isFunctionName(const QString& word) {
  static const QStringList names = {"Re",  "Im",  "cos",  "sin",      "exp",
                                    "log", "ln",  "tanh", "softplus", "softmax",
                                    "max", "min", "arg",  "sign",     "mask"};
  return names.contains(word);
}

class Typesetter {
 public:
  explicit Typesetter(const QFont& base) : base_(base) {}

  Box layout(const FormulaNode& n, qreal scale) {
    switch (n.kind) {
      case FormulaNode::Kind::Text:
        return text(n.text, scale);
      case FormulaNode::Kind::Group: {
        Box out = strut(scale);
        for (const auto& c : n.children) out.appendRight(layout(*c, scale));
        return out;
      }
      case FormulaNode::Kind::Scripted:
        return scripted(n, scale);
      case FormulaNode::Kind::Fraction:
        return fraction(n, scale);
    }
    return {};
  }

 private:
  QFont fontAt(qreal scale, bool italic) const {
    QFont f = base_;
    f.setPointSizeF(base_.pointSizeF() * scale);
    f.setItalic(italic);
    return f;
  }

  // An empty box with the font's height, so that a group is never shorter than its text.
  Box strut(qreal scale) const {
    QFontMetricsF fm(fontAt(scale, false));
    Box b;
    b.ascent = fm.ascent();
    b.descent = fm.descent();
    return b;
  }

  // Words of Latin letters: one letter is a variable (italic); function names stay upright.
  Box text(const QString& s, qreal scale) const {
    static const QRegularExpression words("[A-Za-z]+|[^A-Za-z]+");
    Box out = strut(scale);
    auto it = words.globalMatch(s);
    while (it.hasNext()) {
      const QString w = it.next().captured();
      const bool italic = w.size() == 1 && w[0].isLetter() && w[0].unicode() < 128;
      const QFont f = fontAt(scale, italic && !isFunctionName(w));
      QFontMetricsF fm(f);
      Box b;
      b.width = fm.horizontalAdvance(w) + (italic ? fm.averageCharWidth() * 0.08 : 0);
      b.ascent = fm.ascent();
      b.descent = fm.descent();
      b.pieces.push_back({QPointF(0, 0), w, f, {}});
      out.appendRight(b);
    }
    return out;
  }

  Box scripted(const FormulaNode& n, qreal scale) {
    Box out = layout(*n.children[0], scale);
    const qreal s = std::max(kMinScale, scale * kScriptScale);
    const qreal baseAscent = QFontMetricsF(fontAt(scale, false)).ascent();
    const qreal x = out.width;
    qreal w = 0;
    if (n.sup) {
      Box sup = layout(*n.sup, s);
      // Raised above the base's top when the base is taller than a letter (e^{...} after a group).
      const qreal raise = std::max(kSupRaise * baseAscent, out.ascent - 0.6 * sup.ascent);
      out.append(sup, x, -raise);
      w = std::max(w, sup.width);
    }
    if (n.sub) {
      Box sub = layout(*n.sub, s);
      out.append(sub, x, std::max(kSubDrop * baseAscent, out.descent - 0.4 * sub.descent));
      w = std::max(w, sub.width);
    }
    out.width += w;
    return out;
  }

  Box fraction(const FormulaNode& n, qreal scale) {
    const qreal s = scale * kFractionScale;
    Box num = layout(*n.children[0], s), den = layout(*n.children[1], s);
    QFontMetricsF fm(fontAt(scale, false));
    const qreal axis = fm.strikeOutPos();  // the rule sits on the math axis (height of a minus)
    const qreal gap = kFractionGap * fm.height();
    const qreal rule = std::max(1.0, kRuleWidth * fm.height());
    const qreal pad = fm.averageCharWidth() * 0.15;
    const qreal w = std::max(num.width, den.width) + 2 * pad;
    Box out;
    out.append(num, (w - num.width) / 2, -(axis + rule / 2 + gap + num.descent));
    out.append(den, (w - den.width) / 2, -axis + rule / 2 + gap + den.ascent);
    Piece line;
    line.rule = QRectF(0, -axis - rule / 2, w, rule);
    out.pieces.push_back(line);
    out.width = w;
    return out;
  }

  QFont base_;
};

Box typeset(const QString& markup, const FormulaStyle& style) {
  auto tree = parseFormula(markup);
  QFont base = style.font;
  if (base.pointSizeF() <= 0) base.setPointSizeF(10);
  return Typesetter(base).layout(*tree, 1.0);
}

}  // namespace

QSizeF formulaSize(const QString& markup, const FormulaStyle& style) {
  const Box b = typeset(markup, style);
  return {std::ceil(b.width) + 2, std::ceil(b.ascent + b.descent) + 2};
}

QStringList breakFormula(const QString& markup, const FormulaStyle& style, qreal maxWidth) {
  // Break points: the space before a top-level binary plus or minus.
  std::vector<int> cuts;
  int braces = 0, parens = 0;
  for (int i = 0; i < markup.size(); ++i) {
    const QChar c = markup[i];
    if (c == '\\') {
      ++i;
      continue;
    }
    braces += c == '{' ? 1 : c == '}' ? -1 : 0;
    parens += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (braces == 0 && parens == 0 && c == ' ' && i + 2 < markup.size() &&
        (markup[i + 1] == '+' || markup[i + 1] == QChar(0x2212)) && markup[i + 2] == ' ')
      cuts.push_back(i);
  }
  QStringList lines;
  int start = 0;
  int lastFit = -1;  // the furthest cut whose line still fits
  for (size_t n = 0; n <= cuts.size(); ++n) {
    const int end = n < cuts.size() ? cuts[n] : markup.size();
    const QString candidate = markup.mid(start, end - start).trimmed();
    if (formulaSize(candidate, style).width() <= maxWidth || lastFit < 0) {
      if (formulaSize(candidate, style).width() <= maxWidth) {
        lastFit = end;
        continue;
      }
      lines << candidate;  // one term too wide for any line: alone
      start = end;
      lastFit = -1;
      continue;
    }
    lines << markup.mid(start, lastFit - start).trimmed();
    start = lastFit;
    lastFit = -1;
    --n;  // this cut again, from the new line's start
  }
  const QString rest = markup.mid(start).trimmed();
  if (!rest.isEmpty()) lines << rest;
  return lines;
}

QImage renderFormula(const QString& markup, const FormulaStyle& style) {
  if (markup.isEmpty()) return {};
  const Box b = typeset(markup, style);
  const QSizeF size(std::ceil(b.width) + 2, std::ceil(b.ascent + b.descent) + 2);
  const qreal dpr = std::max<qreal>(style.devicePixelRatio, 1.0);
  QImage img(std::ceil(size.width() * dpr), std::ceil(size.height() * dpr),
             QImage::Format_ARGB32_Premultiplied);
  img.setDevicePixelRatio(dpr);
  img.fill(Qt::transparent);
  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  p.setPen(style.color);
  const QPointF origin(1, 1 + b.ascent);
  for (const Piece& piece : b.pieces) {
    if (piece.text.isEmpty()) {
      p.fillRect(piece.rule.translated(origin), style.color);
    } else {
      p.setFont(piece.font);
      p.drawText(origin + piece.at, piece.text);
    }
  }
  return img;
}

}  // namespace poslab::ui
