// A spin box for a real value that keeps every digit a setup names. QDoubleSpinBox rounds what it
// is given to its decimals; this one keeps kFormDecimals (enough for any lr a setup names, e.g.
// 2.5e-5) and shows the shortest text that reads back as the same number ("2.5e-05", "0.003"), so
// a loaded value is exactly what the runs train with.
#pragma once

#include <QDoubleSpinBox>
#include <QLocale>
#include <QValidator>
#include <cmath>

#include "training/training_setup.h"

namespace poslab::ui {

class PreciseSpinBox : public QDoubleSpinBox {
 public:
  explicit PreciseSpinBox(QWidget* parent) : QDoubleSpinBox(parent) { setDecimals(kFormDecimals); }
  QString textFromValue(double v) const override {
    // Whole numbers as written (10000, not 'g''s 1e+04); the rest in the shortest exact form.
    if (v == std::floor(v) && std::abs(v) < 1e15) return QString::number(v, 'f', 0);
    return locale().toString(v, 'g', QLocale::FloatingPointShortest);
  }
  double valueFromText(const QString& text) const override {
    return locale().toDouble(text.trimmed());
  }
  QValidator::State validate(QString& text, int&) const override {
    bool ok = false;
    const double v = locale().toDouble(text.trimmed(), &ok);
    return ok && v >= minimum() && v <= maximum() ? QValidator::Acceptable
                                                  : QValidator::Intermediate;
  }
};

}  // namespace poslab::ui
