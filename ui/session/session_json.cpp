// The session's JSON form: sessionToJson and the shape check sessionFromJson (session_state.h).
// QtCore only (QString messages): the session and state-string fuzz harnesses
// (tests/fuzz/) link this file without widgets.
#include <QObject>
#include <QString>

#include <algorithm>
#include <exception>

#include "io/json_fields.h"
#include "session/session_state.h"

namespace poslab::ui {

using nlohmann::json;

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

// Reads one JSON object field by field, naming the field in every error and rejecting fields it
// does not know (a typo in a hand-edited session must not be ignored silently).
class ObjectReader {
 public:
  ObjectReader(const json& j, std::string path, QString* error)
      : j_(j), path_(std::move(path)), error_(error) {
    if (!j_.is_object()) fail(path_, "must be a JSON object, not " + shownJson(j_));
  }
  bool ok() const { return ok_; }

  const json* field(const char* key, bool required) {
    if (!ok_) return nullptr;
    seen_.push_back(key);
    auto it = j_.find(key);
    if (it == j_.end()) {
      if (required) fail(name(key), "is missing");
      return nullptr;
    }
    return &*it;
  }
  void string(const char* key, std::string& out, bool required = false) {
    if (const json* v = field(key, required)) {
      if (v->is_string())
        out = v->get<std::string>();
      else
        fail(name(key), "must be a string, not " + shownJson(*v));
    }
  }
  void number(const char* key, double& out) {
    if (const json* v = field(key, false)) {
      if (v->is_number())
        out = v->get<double>();
      else
        fail(name(key), "must be a number, not " + shownJson(*v));
    }
  }
  void integer(const char* key, long long& out) {
    if (const json* v = field(key, false)) {
      if (v->is_number_integer())
        out = v->get<long long>();
      else
        fail(name(key), "must be a whole number, not " + shownJson(*v));
    }
  }
  void strings(const char* key, std::vector<std::string>& out) {
    if (const json* v = field(key, false)) {
      if (!v->is_array())
        return fail(name(key), "must be an array of strings, not " + shownJson(*v));
      std::vector<std::string> items;
      for (size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string())
          return fail(name(key) + "[" + std::to_string(i) + "]",
                      "must be a string, not " + shownJson((*v)[i]));
        items.push_back((*v)[i].get<std::string>());
      }
      out = items;
    }
  }
  void boolean(const char* key, bool& out) {
    if (const json* v = field(key, false)) {
      if (v->is_boolean())
        out = v->get<bool>();
      else
        fail(name(key), "must be true or false, not " + shownJson(*v));
    }
  }
  // Call last: fails on a field no getter asked for.
  bool finish() {
    if (!ok_) return false;
    for (const auto& [k, v] : j_.items())
      if (std::find(seen_.begin(), seen_.end(), k) == seen_.end()) {
        std::string known;
        for (const auto& s : seen_) known += (known.empty() ? "" : ", ") + s;
        fail(name(k.c_str()), "is not a known field (known here: " + known + ")");
        break;
      }
    return ok_;
  }
  std::string name(const char* key) const { return path_.empty() ? key : path_ + "." + key; }
  void fail(const std::string& field, const std::string& what) {
    if (!ok_) return;
    ok_ = false;
    // The top level has no field name: "the document must be a JSON object, not an array".
    *error_ = field.empty() ? QObject::tr("the document %1").arg(q(what))
                            : QObject::tr("field '%1' %2").arg(q(field), q(what));
  }

 private:
  const json& j_;
  std::string path_;
  QString* error_;
  bool ok_ = true;
  std::vector<std::string> seen_;
};

}  // namespace

json sessionToJson(const SessionState& s) {
  const ViewSettings& v = s.views;
  json j = {
      {"format", kSessionFormat},
      {"tab", s.tab},
      {"explorer", {{"family", s.family}, {"values", s.values}}},
      {"views",
       {{"kernel", {{"lags", v.kernel.lagCount}, {"log_lag", v.kernel.logLag}}},
        {"attention",
         {{"T", v.attention.T}, {"head", v.attention.head}, {"log_color", v.attentionLogColor}}},
        {"norms", {{"max_position", v.norms.maxPos}}},
        {"probe", {{"target", v.probe.target}, {"family_only", v.probe.familyOnly}}},
        {"diagnostics", {{"target", v.diagnostics.target}}}}},
      {"training", experimentToJson(s.training)}};
  if (!v.kernel.overlay.empty()) j["views"]["kernel"]["overlay"] = v.kernel.overlay;
  if (v.kernel.basisOwnAxis) j["views"]["kernel"]["basis_axis"] = true;
  if (!s.checkpoints.empty()) {
    json list = json::array();
    for (const SessionCheckpoint& c : s.checkpoints)
      list.push_back({{"family", c.family}, {"file", c.file}, {"step", c.step}});
    j["trained_models"] = list;
  }
  if (!s.familyFiles.empty()) {
    json list = json::array();
    for (const SessionFamilyFile& f : s.familyFiles)
      list.push_back({{"family", f.family}, {"hash", f.hash}});
    j["family_files"] = list;
  }
  return j;
}

bool sessionFromJson(const json& j, SessionState& out, QString* error) {
  SessionState s;
  ObjectReader top(j, "", error);
  if (const json* f = top.field("format", true)) {
    if (!f->is_string() || f->get<std::string>() != kSessionFormat) {
      *error = QObject::tr(
                   "field 'format' is %1, not \"%2\" (not a PosLab session, or one from "
                   "another version)")
                   .arg(q(shownJson(*f)), kSessionFormat);
      return false;
    }
  }
  top.string("tab", s.tab);
  if (const json* e = top.field("explorer", true)) {
    ObjectReader r(*e, "explorer", error);
    r.string("family", s.family, true);
    if (const json* values = r.field("values", false)) {
      ObjectReader vr(*values, "explorer.values", error);
      if (vr.ok())
        for (const auto& [name, v] : values->items()) {
          double x = 0;
          vr.number(name.c_str(), x);
          s.values[name] = x;
        }
      if (!vr.finish()) return false;
    }
    if (!r.finish()) return false;
  }
  if (const json* views = top.field("views", false)) {
    ViewSettings& v = s.views;
    ObjectReader r(*views, "views", error);
    if (const json* k = r.field("kernel", false)) {
      ObjectReader kr(*k, "views.kernel", error);
      kr.integer("lags", v.kernel.lagCount);
      kr.boolean("log_lag", v.kernel.logLag);
      kr.strings("overlay", v.kernel.overlay);  // optional: sessions before overlays lack it
      kr.boolean("basis_axis", v.kernel.basisOwnAxis);  // optional, like overlay
      if (!kr.finish()) return false;
    }
    if (const json* a = r.field("attention", false)) {
      ObjectReader ar(*a, "views.attention", error);
      ar.integer("T", v.attention.T);
      ar.integer("head", v.attention.head);
      ar.boolean("log_color", v.attentionLogColor);
      if (!ar.finish()) return false;
    }
    if (const json* n = r.field("norms", false)) {
      ObjectReader nr(*n, "views.norms", error);
      nr.integer("max_position", v.norms.maxPos);
      if (!nr.finish()) return false;
    }
    if (const json* p = r.field("probe", false)) {
      ObjectReader pr(*p, "views.probe", error);
      pr.string("target", v.probe.target);
      pr.boolean("family_only", v.probe.familyOnly);
      if (!pr.finish()) return false;
    }
    if (const json* d = r.field("diagnostics", false)) {
      ObjectReader dr(*d, "views.diagnostics", error);
      dr.string("target", v.diagnostics.target);
      if (!dr.finish()) return false;
    }
    if (!r.finish()) return false;
  }
  if (const json* t = top.field("training", true)) {
    try {
      s.training = readExperiment(*t, JsonPath{"", "training"});
    } catch (const std::exception& e) {
      *error = QString::fromUtf8(e.what());
      return false;
    }
  }
  if (const json* models = top.field("trained_models", false)) {
    if (!models->is_array()) {
      *error =
          QObject::tr("field 'trained_models' must be an array, not %1").arg(q(shownJson(*models)));
      return false;
    }
    for (size_t i = 0; i < models->size(); ++i) {
      SessionCheckpoint c;
      ObjectReader r((*models)[i], "trained_models[" + std::to_string(i) + "]", error);
      r.string("family", c.family, true);
      r.string("file", c.file, true);
      r.integer("step", c.step);
      if (!r.finish()) return false;
      s.checkpoints.push_back(c);
    }
  }
  if (const json* files = top.field("family_files", false)) {
    if (!files->is_array()) {
      *error =
          QObject::tr("field 'family_files' must be an array, not %1").arg(q(shownJson(*files)));
      return false;
    }
    for (size_t i = 0; i < files->size(); ++i) {
      SessionFamilyFile f;
      ObjectReader r((*files)[i], "family_files[" + std::to_string(i) + "]", error);
      r.string("family", f.family, true);
      r.string("hash", f.hash, true);
      if (!r.finish()) return false;
      s.familyFiles.push_back(f);
    }
  }
  if (!top.finish()) return false;
  out = s;
  return true;
}

}  // namespace poslab::ui
