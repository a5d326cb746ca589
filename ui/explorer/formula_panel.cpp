#include "explorer/formula_panel.h"

#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>

#include "math/formula_markup.h"
#include "math/formula_render.h"
#include "math/prose_markup.h"

namespace poslab::ui {

namespace {
constexpr qreal kFormulaFontScale = 1.3;  // the formula a little larger than the summary text
constexpr int kTextMargin = 24;           // the browser's document margins and a little air
}  // namespace

FormulaPanel::FormulaPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  text_ = new QTextBrowser(this);
  text_->setObjectName("formula");
  text_->setOpenExternalLinks(true);
  layout->addWidget(text_);
}

void FormulaPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (shown_) showFamily(*shown_);  // the lines break for the new width
}

void FormulaPanel::showFamily(const FamilyDescription& f) {
  if (!shown_ || &*shown_ != &f) shown_ = f;
  formula_ = QString::fromStdString(f.formula);
  FormulaStyle style;
  style.font = text_->font();
  style.font.setPointSizeF(style.font.pointSizeF() * kFormulaFontScale);
  style.color = text_->palette().color(QPalette::Text);
  style.devicePixelRatio = devicePixelRatioF();
  // One line per definition: the formulas separate them with a comma and two spaces.
  // Long definitions break before a top-level + or − to fit the panel's width.
  QString lines;
  QStringList parts;
  const qreal width = std::max(120, text_->viewport()->width() - kTextMargin);
  for (const QString& d : formula_.split(QStringLiteral(",  "), Qt::SkipEmptyParts))
    parts << breakFormula(d, style, width);
  for (int n = 0; n < parts.size(); ++n) {
    const QImage image = renderFormula(parts[n], style);
    const QUrl url(QStringLiteral("formula:family-%1").arg(n));
    text_->document()->addResource(QTextDocument::ImageResource, url, image);
    // The typeset formula is an image; its markup is the alt text.
    lines += QStringLiteral("<img src='%1' alt='%2' width='%3' height='%4'><br>")
                 .arg(url.toString(), parts[n].toHtmlEscaped())
                 .arg(image.deviceIndependentSize().width())
                 .arg(image.deviceIndependentSize().height());
  }
  const QString html =
      QStringLiteral("<h3>%1</h3><p>%2</p><p>%3</p>")
          .arg(QString::fromStdString(f.title).toHtmlEscaped(), lines,
               // A loaded family's summary is the user's prose (and its
               // path), with formulas only between $…$.
               f.isLoaded() ? proseToHtml(QString::fromStdString(f.summary))
                            : formulaToHtml(*parseFormula(QString::fromStdString(f.summary))));
  text_->setHtml(html);
}

}  // namespace poslab::ui
