#include "graph/errors.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace dnnbench {
namespace {

std::string format_input_error(const std::string& file, const std::string& path, const std::string& message) {
  std::string text = file.empty() ? std::string("<input>") : file;
  if (!path.empty()) text += ": at " + path;
  return text + ": " + message;
}

std::string hex_escape(unsigned char byte) {
  char text[8];
  std::snprintf(text, sizeof text, "\\x%02X", byte);
  return text;
}

// Length of the valid UTF-8 sequence starting at text[at], or 0 when it is not one (overlong
// forms, surrogates and code points past U+10FFFF are not valid).
std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
  const unsigned char lead = byte(0);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code = lead & 0x1Fu;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code = lead & 0x0Fu;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code = lead & 0x07u;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(k) & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (byte(k) & 0x3Fu);
  }
  if ((length == 3 && code < 0x800) || (length == 4 && code < 0x10000) || code > 0x10FFFF ||
      (code >= 0xD800 && code <= 0xDFFF))
    return 0;
  return length;
}

// A part of a message longer than this is cut: a 200,000-character name in a file must not make
// a 200,000-character line. Long enough for any real name, path or list of valid values.
constexpr std::size_t kMaxPartLength = 1000;

std::string printable_part(std::string_view text) {
  std::string out = printable_text(text);
  if (out.size() <= kMaxPartLength) return out;
  std::size_t cut = kMaxPartLength;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0u) == 0x80u) --cut;  // not inside a character
  const std::size_t dropped = out.size() - cut;
  out.resize(cut);
  return out + "... (" + std::to_string(dropped) + " more characters)";
}

}  // namespace

std::string printable_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t k = 0; k < text.size();) {
    const auto c = static_cast<unsigned char>(text[k]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      out += hex_escape(c);
    } else if (const std::size_t length = utf8_sequence_length(text, k); length > 0) {
      out.append(text.substr(k, length));
      k += length;
      continue;
    } else {
      out += hex_escape(c);
    }
    ++k;
  }
  return out;
}

InputError::InputError(std::string file, std::string json_path, std::string message)
    : std::runtime_error(
          format_input_error(printable_part(file), printable_part(json_path), printable_part(message))),
      file_(printable_part(file)),
      json_path_(printable_part(json_path)),
      message_(printable_part(message)) {}

namespace {

// Levenshtein distance, case-insensitive (single-row dynamic programme).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto fold = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string closest_match(std::string_view word, std::span<const std::string_view> candidates) {
  // A third of the word's length (at least 2): `strdes` -> `strides` (1), `conv_mod` -> `conv_mode`
  // (1), `ConvolutionFwdAtributes` (1); far enough to leave unrelated names out.
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto candidate : candidates) {
    const auto d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

}  // namespace dnnbench
