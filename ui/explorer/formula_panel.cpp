#include "explorer/formula_panel.h"

#include <QTextBrowser>
#include <QVBoxLayout>

namespace poslab::ui {

FormulaPanel::FormulaPanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  text_ = new QTextBrowser(this);
  text_->setObjectName("formula");
  text_->setOpenExternalLinks(true);
  layout->addWidget(text_);
}

void FormulaPanel::showFamily(const FamilyDescription& f) {
  const QString html = QStringLiteral("<h3>%1</h3><p style='font-size:large'>%2</p><p>%3</p>")
                           .arg(QString::fromStdString(f.title).toHtmlEscaped(),
                                QString::fromStdString(f.formula).toHtmlEscaped(),
                                QString::fromStdString(f.summary).toHtmlEscaped());
  text_->setHtml(html);
}

}  // namespace poslab::ui
