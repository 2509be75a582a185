#pragma once
// The fixed parts of the HTML report (report/html_report.hpp): its style and its script, which
// draws every chart and table from the embedded JSON. Our own code, inline, so the page works
// offline.
#include <string_view>

namespace dnnbench {

extern const std::string_view kHtmlPageHead;    // doctype, <html>, <head> up to the title
extern const std::string_view kHtmlPageStyle;   // <style>
extern const std::string_view kHtmlPageBody;    // the page's sections, empty until the script runs
extern const std::string_view kHtmlPageScript;  // <script> that renders; sets body[data-rendered]

}  // namespace dnnbench
