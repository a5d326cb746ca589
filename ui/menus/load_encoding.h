// File > Load Encoding...: a position family written in PyTorch and saved as TorchScript
// (docs/ENCODINGS.md) joins the explorer's family list and the training form's families for the
// rest of the session. Loading a TorchScript file runs its code: the first load of a session says
// so, once (the window's FamilyFileGate, which every other way of loading a module shares), and
// goes on only when the user agrees. The file is read and checked (core's probe)
// off the UI thread. A file that fails gives one line naming the file, the method and what was
// wrong, and nothing in the window changes; one that passes becomes the explorer's family (one
// undo step), its sliders built from its metadata.
#pragma once

#include <QObject>
#include <QString>

class QWidget;

namespace poslab::ui {

class FamilyFileGate;
class ParameterPanel;

class EncodingLoader : public QObject {
  Q_OBJECT
 public:
  EncodingLoader(QWidget* window, ParameterPanel* parameters, FamilyFileGate* gate,
                 QObject* parent = nullptr);

  // The menu's command: the notice that loading runs code (first time only; object name
  // "encodingCodeNotice", opened without blocking), then the file dialog (a QFileDialog, object
  // name "loadEncodingDialog", opened without blocking; Qt's own widget dialog where the platform
  // has no native one or Qt::AA_DontUseNativeDialogs is set), then load() of the chosen file.
  // Cancelling either changes nothing.
  void request();
  // Loads `path` without a dialog (a test, or after request()): finished() tells the outcome.
  void load(const QString& path);
  // True once the user has agreed to run loaded code in this session.
  bool agreed() const;

 Q_SIGNALS:
  // ok: `what` is the family id now in the lists; else the one-line error that was shown.
  void finished(bool ok, const QString& what);

 private:
  void chooseFile();

  QWidget* window_;
  ParameterPanel* parameters_;
  FamilyFileGate* gate_;
};

}  // namespace poslab::ui
