//===- Json.h - One line of JSON for the GPU bench host ---------*- C++ -*-===//
//
// A flat writer for the one JSON object vmapc-gpu-bench prints (the host
// links only the runtime): strings escaped per RFC 8259, numbers with 9
// significant digits, non-finite numbers as null.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_GPU_HOST_JSON_H
#define VMAPC_GPU_HOST_JSON_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace vmapc::gpuhost {

inline std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

inline std::string jsonNumber(double x) {
  if (!std::isfinite(x))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

/// Collects the "key": value pairs of one object.
class JsonObject {
public:
  JsonObject &raw(const std::string &key, const std::string &value) {
    text += (text.empty() ? "" : ", ") + jsonString(key) + ": " + value;
    return *this;
  }
  JsonObject &str(const std::string &key, const std::string &value) {
    return raw(key, jsonString(value));
  }
  JsonObject &num(const std::string &key, double value) {
    return raw(key, jsonNumber(value));
  }
  JsonObject &integer(const std::string &key, uint64_t value) {
    return raw(key, std::to_string(value));
  }
  JsonObject &boolean(const std::string &key, bool value) {
    return raw(key, value ? "true" : "false");
  }
  JsonObject &numbers(const std::string &key, const std::vector<double> &v) {
    std::string list = "[";
    for (size_t i = 0; i < v.size(); ++i)
      list += (i ? ", " : "") + jsonNumber(v[i]);
    return raw(key, list + "]");
  }
  std::string done() const { return "{" + text + "}"; }

private:
  std::string text;
};

} // namespace vmapc::gpuhost

#endif // VMAPC_GPU_HOST_JSON_H
