// The chosen family's formula (FamilyInfo::formula, typeset by math/formula_render.h) and its
// one-paragraph summary.
#pragma once

#include <QWidget>

#include <optional>

#include "bridge/catalog.h"

class QTextBrowser;

namespace poslab::ui {

class FormulaPanel : public QWidget {
  Q_OBJECT
 public:
  explicit FormulaPanel(QWidget* parent = nullptr);
  void showFamily(const FamilyDescription& family);

 private:
  void resizeEvent(QResizeEvent* event) override;

  QTextBrowser* text_ = nullptr;
  QString formula_;
  std::optional<FamilyDescription> shown_;  // re-laid out on resize
};

}  // namespace poslab::ui
