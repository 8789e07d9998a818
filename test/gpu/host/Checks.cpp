//===- Checks.cpp - The GPU test table and its tolerances -----------------===//

#include "Checks.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace vmapc::gpuhost {

namespace {

bool parseNumber(const std::string &text, double *out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  double value = std::strtod(text.c_str(), &end);
  if (*end != '\0' || errno != 0 || !std::isfinite(value) || value < 0)
    return false;
  *out = value;
  return true;
}

std::vector<std::string> split(const std::string &text, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      return parts;
    start = end + 1;
  }
}

std::string stem(const std::string &path) {
  size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.rfind(".arr");
  return dot != std::string::npos && dot + 4 == name.size()
             ? name.substr(0, dot)
             : name;
}

std::string f32Text(float x) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(x));
  return buf;
}

} // namespace

bool parseTolerance(const std::string &text, Tolerance *out,
                    std::string *error) {
  Tolerance tol;
  tol.text = text;
  if (text == "exact") {
    *out = tol;
    return true;
  }
  tol.exact = false;
  if (text.rfind("sum:", 0) == 0) {
    double terms = 0;
    if (!parseNumber(text.substr(4), &terms) || terms < 1 ||
        terms != std::floor(terms)) {
      *error = "tolerance '" + text + "': sum:L wants a whole L >= 1";
      return false;
    }
    tol.absolute = tol.relative = terms * std::ldexp(1.0, -20);
    *out = tol;
    return true;
  }
  std::vector<std::string> parts = split(text, '/');
  if (parts.size() != 2 || !parseNumber(parts[0], &tol.absolute) ||
      !parseNumber(parts[1], &tol.relative)) {
    *error = "tolerance '" + text +
             "': expected exact, A/R (two numbers >= 0) or sum:L";
    return false;
  }
  *out = tol;
  return true;
}

Tolerance Check::tolerance(size_t i, DType dtype) const {
  if (dtype != DType::F32 || tolerances.empty())
    return Tolerance{};
  return tolerances.size() == 1 ? tolerances[0] : tolerances[i];
}

std::string artifactPath(const std::string &dir, const std::string &name,
                         const std::string &device) {
  if (device == "cpu" || device.rfind("cpu:", 0) == 0) {
    std::string cpu = dir + "/cpu/" + name + ".vmapc";
    if (std::ifstream(cpu).good())
      return cpu;
  }
  return dir + "/" + name + ".vmapc";
}

bool readChecks(const std::string &path, std::vector<Check> *out,
                std::string *error) {
  std::ifstream file(path);
  if (!file) {
    *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::string text;
  int lineNumber = 0;
  out->clear();
  while (std::getline(file, text)) {
    ++lineNumber;
    size_t hash = text.find('#');
    if (hash != std::string::npos)
      text.resize(hash);
    std::istringstream fields(text);
    std::vector<std::string> f;
    for (std::string field; fields >> field;)
      f.push_back(field);
    if (f.empty())
      continue;
    std::string where = path + ":" + std::to_string(lineNumber) + ": ";
    if (f.size() != 5) {
      *error = where +
               "expected 5 fields (PROGRAM ENTRY N DATA TOLERANCE), "
               "got " +
               std::to_string(f.size());
      return false;
    }
    Check c;
    c.line = lineNumber;
    c.program = f[0];
    c.name = stem(f[0]);
    c.entry = f[1];
    char *end = nullptr;
    errno = 0;
    long long n = std::strtoll(f[2].c_str(), &end, 10);
    if (f[2].empty() || *end != '\0' || errno != 0 || n < 0) {
      *error = where + "N '" + f[2] + "' is not an integer >= 0";
      return false;
    }
    c.numExamples = n;
    c.dataText = f[3];
    for (const std::string &item : split(f[3], ',')) {
      std::optional<DataKind> kind = parseDataKind(item);
      if (!kind) {
        *error = where + "unknown data kind '" + item +
                 "' (uniform, int, positive or small)";
        return false;
      }
      c.data.push_back(*kind);
    }
    for (const std::string &item : split(f[4], ',')) {
      Tolerance tol;
      if (!parseTolerance(item, &tol, error)) {
        *error = where + *error;
        return false;
      }
      c.tolerances.push_back(tol);
    }
    out->push_back(std::move(c));
  }
  if (out->empty()) {
    *error = path + ": no checks";
    return false;
  }
  return true;
}

bool checkEntry(const Check &check, const EntryInfo &entry,
                std::string *error) {
  std::string where = "line " + std::to_string(check.line) + ": ";
  if (check.data.size() != 1 && check.data.size() != entry.inputs.size()) {
    *error = where + "entry '" + check.entry + "' has " +
             std::to_string(entry.inputs.size()) +
             (entry.inputs.size() == 1 ? " input" : " inputs") +
             ", the line gives " + std::to_string(check.data.size()) +
             " data kinds";
    return false;
  }
  const std::vector<ArgInfo> &outputs = entry.outputs;
  if (check.tolerances.size() == 1)
    return true;
  if (check.tolerances.size() != outputs.size()) {
    *error = where + "entry '" + check.entry + "' has " +
             std::to_string(outputs.size()) + " outputs, the line gives " +
             std::to_string(check.tolerances.size()) + " tolerances";
    return false;
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].dtype != DType::F32 && !check.tolerances[i].exact) {
      *error = where + "output '" + outputs[i].name +
               "' is not f32: its tolerance must be exact, not '" +
               check.tolerances[i].text + "'";
      return false;
    }
  return true;
}

Comparison compareOutput(const void *device, const void *reference, DType dtype,
                         int64_t count, const Tolerance &tol) {
  Comparison c;
  auto fail = [&](int64_t i, std::string d, std::string r) {
    if (c.ok) {
      c.ok = false;
      c.badIndex = i;
      c.deviceValue = std::move(d);
      c.referenceValue = std::move(r);
    }
  };
  const auto *dev = static_cast<const unsigned char *>(device);
  const auto *ref = static_cast<const unsigned char *>(reference);
  for (int64_t i = 0; i < count; ++i) {
    switch (dtype) {
    case DType::F32: {
      float d, r;
      std::memcpy(&d, dev + 4 * i, 4);
      std::memcpy(&r, ref + 4 * i, 4);
      if (std::isnan(d) || std::isnan(r)) {
        if (std::isnan(d) != std::isnan(r)) {
          c.maxError = NAN;
          fail(i, f32Text(d), f32Text(r));
        }
        break;
      }
      if (std::isinf(d) || std::isinf(r)) {
        if (d != r) {
          c.maxError = INFINITY;
          fail(i, f32Text(d), f32Text(r));
        }
        break;
      }
      double err = std::fabs(static_cast<double>(d) - static_cast<double>(r));
      if (!std::isnan(c.maxError) && err > c.maxError)
        c.maxError = err;
      if (tol.exact) {
        if (err != 0)
          fail(i, f32Text(d), f32Text(r));
        break;
      }
      double allowed = tol.absolute + tol.relative * std::fabs(r);
      double ratio = allowed > 0 ? err / allowed : (err > 0 ? INFINITY : 0);
      if (ratio > c.worstRatio)
        c.worstRatio = ratio;
      if (err > allowed)
        fail(i, f32Text(d), f32Text(r));
      break;
    }
    case DType::I32: {
      int32_t d, r;
      std::memcpy(&d, dev + 4 * i, 4);
      std::memcpy(&r, ref + 4 * i, 4);
      if (d != r) {
        c.maxError += 1;
        fail(i, std::to_string(d), std::to_string(r));
      }
      break;
    }
    case DType::Bool:
      if (dev[i] != ref[i]) {
        c.maxError += 1;
        fail(i, std::to_string(dev[i]), std::to_string(ref[i]));
      }
      break;
    }
  }
  return c;
}

} // namespace vmapc::gpuhost
