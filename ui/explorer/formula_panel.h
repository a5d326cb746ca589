// The chosen family's formula (FamilyInfo::formula, Unicode) and its one-paragraph summary.
#pragma once

#include <QWidget>

#include "bridge/catalog.h"

class QTextBrowser;

namespace poslab::ui {

class FormulaPanel : public QWidget {
  Q_OBJECT
 public:
  explicit FormulaPanel(QWidget* parent = nullptr);
  void showFamily(const FamilyDescription& family);

 private:
  QTextBrowser* text_ = nullptr;
};

}  // namespace poslab::ui
