//===- PlanSvg.cpp - the buffer plan as a picture ------------------------===//
//
// writePlanSvg (PlanReport.h says what it draws). All sizes in px; text is
// 12 px monospace, whose glyphs are about 0.6 em wide.
//
//===----------------------------------------------------------------------===//

#include "report/PlanReport.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;

namespace vmapc {
namespace {

constexpr double kWidth = 1200;
constexpr double kLeft = 120;  // room for the offset labels
constexpr double kRight = 140; // room for the lower bound's label
constexpr double kFont = 12;
constexpr double kCharWidth = 0.6 * kFont;
constexpr double kMinBand = 18;      // the least height between two boundaries
constexpr double kChartHeight = 420; // when the bands' minimum leaves room
constexpr double kLineHeight = 16;

/// The text with &, <, >, " and ' escaped for XML.
std::string escape(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// "48 B", "1.5 KiB", "250 KiB", "3.2 MiB": short, for labels and ticks.
std::string shortBytes(int64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 10240 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  if (unit == 0)
    return std::to_string(bytes) + " B";
  double rounded = std::round(value * 10) / 10;
  if (rounded == std::floor(rounded))
    return llvm::formatv("{0} {1}", static_cast<int64_t>(rounded), units[unit]);
  return llvm::formatv("{0:F1} {1}", rounded, units[unit]);
}

const char *fillOf(BufferRole role) {
  switch (role) {
  case BufferRole::Staging:
    return "#f2b25c";
  case BufferRole::Intermediate:
    return "#7eaee0";
  case BufferRole::InPlace:
    return "#7cc48a";
  case BufferRole::Donated:
    return "#c59ad9";
  case BufferRole::OncePerCall:
    return "#b8b8b8";
  }
  return "#7eaee0";
}

double textWidth(llvm::StringRef text) { return text.size() * kCharWidth; }

/// The monotone map from arena offsets to y: every band between two
/// neighbouring boundaries gets kMinBand px, and what is left of
/// kChartHeight is shared in proportion to bytes.
class OffsetScale {
public:
  OffsetScale(std::vector<int64_t> bounds, double top) : top(top) {
    llvm::sort(bounds);
    bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
    int64_t total = bounds.empty() ? 0 : bounds.back() - bounds.front();
    double spare = std::max(0.0, kChartHeight - kMinBand * (bounds.size() - 1));
    double y = top;
    for (size_t i = 0; i < bounds.size(); ++i) {
      if (i > 0)
        y += kMinBand + (total > 0 ? spare * double(bounds[i] - bounds[i - 1]) /
                                         double(total)
                                   : 0);
      ys[bounds[i]] = y;
    }
    bottom = y;
  }
  /// y of a boundary (every offset asked for is one).
  double operator()(int64_t offset) const {
    auto it = ys.find(offset);
    return it == ys.end() ? top : it->second;
  }
  const std::map<int64_t, double> &ticks() const { return ys; }
  double top, bottom = 0;

private:
  std::map<int64_t, double> ys;
};

void text(llvm::raw_ostream &os, double x, double y, const std::string &body,
          llvm::StringRef extra = "") {
  os << llvm::formatv("<text x=\"{0:F1}\" y=\"{1:F1}\"{2}>{3}</text>\n", x, y,
                      extra, escape(body));
}

/// One entry's panel from y = `top`; returns its bottom.
double drawPanel(llvm::raw_ostream &os, const PlanReport &report, double top) {
  const BufferPlan &plan = report.plan;
  double chartWidth = kWidth - kLeft - kRight;
  double ratio = plan.lowerBound
                     ? static_cast<double>(plan.arenaBytes) / plan.lowerBound
                     : 1.0;
  os << llvm::formatv("<g data-entry=\"{0}\">\n", escape(report.entry));
  text(os, 8, top + 14,
       llvm::formatv("entry {0}: arena {1} bytes, lower bound {2} bytes "
                     "({3:F3}x), naive sum {4} bytes, {5} in-place write(s)",
                     report.entry, plan.arenaBytes, plan.lowerBound, ratio,
                     plan.naiveSum, plan.inPlace),
       " font-weight=\"bold\"");
  double chartTop = top + 40;

  std::vector<int64_t> bounds{0, plan.arenaBytes, plan.lowerBound};
  for (const PlannedBuffer &b : plan.buffers) {
    bounds.push_back(b.offset);
    bounds.push_back(b.offset + b.bytes);
  }
  OffsetScale y(bounds, chartTop);
  int64_t points = std::max<int64_t>(plan.scheduleLength, 1);
  double column = chartWidth / points;
  auto x = [&](int64_t point) { return kLeft + point * column; };

  // Columns, ticks and numbers of the schedule points.
  int64_t every = 1;
  while (textWidth(std::to_string(points - 1)) + 6 > column * every)
    ++every;
  for (int64_t p = 0; p < points; ++p) {
    if (p % 2 == 1)
      os << llvm::formatv("<path d=\"M{0:F1},{1:F1}H{2:F1}V{3:F1}H{0:F1}Z\" "
                          "fill=\"#f4f4f4\"/>\n",
                          x(p), y.top, x(p + 1), y.bottom);
    os << llvm::formatv("<path d=\"M{0:F1},{1:F1}v5\" stroke=\"black\"/>\n",
                        x(p) + column / 2, y.bottom);
    if (p % every == 0)
      text(os, x(p) + column / 2, y.bottom + 18, std::to_string(p),
           " text-anchor=\"middle\"");
  }
  text(os, kLeft + chartWidth / 2, y.bottom + 36,
       "schedule point (the batched program's top-level ops in order; a "
       "buffer spans the points it is live at)",
       " text-anchor=\"middle\"");

  // Offset ticks at the boundaries, labels where they do not collide.
  double lastLabel = -1e9;
  for (auto [offset, at] : y.ticks()) {
    os << llvm::formatv("<path d=\"M{0:F1},{1:F1}h-5\" stroke=\"black\"/>\n",
                        kLeft, at);
    if (at - lastLabel >= kFont + 2) {
      text(os, kLeft - 8, at + 4, shortBytes(offset), " text-anchor=\"end\"");
      lastLabel = at;
    }
  }
  os << llvm::formatv(
      "<text transform=\"translate(14,{0:F1}) rotate(-90)\" "
      "text-anchor=\"middle\">arena offset (bytes, down)</text>\n",
      (y.top + y.bottom) / 2);

  // The buffers.
  std::vector<std::string> unlabelled;
  for (auto [b, r] : llvm::zip(plan.buffers, report.buffers)) {
    double rx = x(b.live.start);
    double rw = (b.live.end - b.live.start + 1) * column;
    double ry = y(b.offset), rh = y(b.offset + b.bytes) - ry;
    std::string title = llvm::formatv(
        "{0}{1}: {2} bytes at offset {3}, live [{4}, {5}], {6}", r.name,
        r.id == r.name ? std::string() : " (" + r.id + ")", b.bytes, b.offset,
        b.live.start, b.live.end, bufferRoleName(r.role));
    if (b.inPlaceSource >= 0)
      title +=
          ", written in place over " + report.buffers[b.inPlaceSource].name;
    if (b.updatesInPlace > 0)
      title += ", updated in place";
    if (!b.description.empty())
      title += "; " + b.description;
    os << llvm::formatv(
        "<rect class=\"buffer\" data-entry=\"{0}\" data-id=\"{1}\" "
        "x=\"{2:F2}\" y=\"{3:F2}\" width=\"{4:F2}\" height=\"{5:F2}\" "
        "fill=\"{6}\" stroke=\"#333\"><title>{7}</title></rect>\n",
        escape(report.entry), escape(r.id), rx, ry, rw, rh, fillOf(r.role),
        escape(title));
    std::string label = r.name + ", " + shortBytes(b.bytes);
    if (textWidth(label) + 8 > rw)
      label = r.name;
    if (textWidth(label) + 8 <= rw && rh >= kFont + 2)
      text(os, rx + 4, ry + std::min(rh / 2 + 4, kFont + 2), label);
    else
      unlabelled.push_back(r.name + " (" + shortBytes(b.bytes) + " at " +
                           std::to_string(b.offset) + ", points " +
                           std::to_string(b.live.start) + "-" +
                           std::to_string(b.live.end) + ")");
  }

  // The frame and the lower bound.
  os << llvm::formatv("<path d=\"M{0:F1},{1:F1}H{2:F1}V{3:F1}H{0:F1}Z\" "
                      "fill=\"none\" stroke=\"black\"/>\n",
                      kLeft, y.top, kLeft + chartWidth, y.bottom);
  double lb = y(plan.lowerBound);
  os << llvm::formatv("<path d=\"M{0:F1},{1:F1}H{2:F1}\" stroke=\"#c0392b\" "
                      "stroke-width=\"2\" stroke-dasharray=\"8,4\"/>\n",
                      kLeft, lb, kLeft + chartWidth + 8);
  text(os, kLeft + chartWidth + 12, lb - 2, "lower bound", " fill=\"#c0392b\"");
  text(os, kLeft + chartWidth + 12, lb + kFont + 2,
       std::to_string(plan.lowerBound) + " B", " fill=\"#c0392b\"");

  // The legend.
  double legendY = y.bottom + 52, lx = kLeft;
  for (BufferRole role :
       {BufferRole::Staging, BufferRole::Intermediate, BufferRole::InPlace,
        BufferRole::Donated, BufferRole::OncePerCall}) {
    os << llvm::formatv("<rect x=\"{0:F1}\" y=\"{1:F1}\" width=\"14\" "
                        "height=\"14\" fill=\"{2}\" stroke=\"#333\">"
                        "<title>legend: {3}</title></rect>\n",
                        lx, legendY, fillOf(role), bufferRoleName(role));
    text(os, lx + 20, legendY + 12, bufferRoleName(role));
    lx += 20 + textWidth(bufferRoleName(role)) + 24;
  }
  os << llvm::formatv("<path d=\"M{0:F1},{1:F1}h28\" stroke=\"#c0392b\" "
                      "stroke-width=\"2\" stroke-dasharray=\"8,4\"/>\n",
                      lx, legendY + 7);
  text(os, lx + 34, legendY + 12, "lower bound");

  // The offset axis's scale, on a line of its own: after the legend it ran
  // past the picture's right edge.
  double bottom = legendY + 14 + 8;
  text(os, kLeft, bottom + kLineHeight - 4,
       "offset axis: at least 18 px between boundaries, else to scale");
  bottom += kLineHeight;
  if (!unlabelled.empty()) {
    text(os, 8, bottom + kLineHeight - 4,
         "not labelled in the picture (too small; each has a tooltip):");
    bottom += kLineHeight;
    size_t shown = std::min<size_t>(unlabelled.size(), 24);
    for (size_t i = 0; i < shown; ++i) {
      text(os, 24, bottom + kLineHeight - 4, unlabelled[i]);
      bottom += kLineHeight;
    }
    if (shown < unlabelled.size()) {
      text(os, 24, bottom + kLineHeight - 4,
           "and " + std::to_string(unlabelled.size() - shown) + " more");
      bottom += kLineHeight;
    }
  }
  os << "</g>\n";
  return bottom;
}

} // namespace

void writePlanSvg(llvm::raw_ostream &os, llvm::ArrayRef<PlanReport> reports) {
  std::string body;
  llvm::raw_string_ostream panels(body);
  double top = 8;
  for (const PlanReport &report : reports)
    top = drawPanel(panels, report, top) + 24;
  os << llvm::formatv(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
      "height=\"{1:F0}\" viewBox=\"0 0 {0} {1:F0}\" "
      "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"{2}\">\n",
      static_cast<int>(kWidth), top, static_cast<int>(kFont));
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"><title>vmapc "
        "buffer plan</title></rect>\n";
  os << body << "</svg>\n";
}

} // namespace vmapc
