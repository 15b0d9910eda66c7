#pragma once

// Reading and writing the small XML documents of object-store REST APIs (S3's and Azure's
// listings, errors and upload manifests). Their answers are flat enough to be read by tag: no
// schema, no namespaces, no nesting of an element in itself.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace silt::io {

/// The raw contents of every <tag>...</tag> in `xml`, in order (elements of this tag must not
/// nest). An element written with attributes (<tag a="b">) is not found.
std::vector<std::string_view> XmlElements(std::string_view xml, std::string_view tag);

/// The text of the first <tag> element, entities decoded; nullopt when there is none.
std::optional<std::string> XmlText(std::string_view xml, std::string_view tag);

/// `text` with XML's five entities and numeric character references decoded.
std::string XmlUnescape(std::string_view text);

/// `text` escaped for element content.
std::string XmlEscape(std::string_view text);

}  // namespace silt::io
