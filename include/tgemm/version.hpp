/// \file version.hpp
/// \brief The library version, as macros and as constants.
#pragma once

/// Major version: changes when the public API changes incompatibly.
#define TGEMM_VERSION_MAJOR 0
/// Minor version: new features that keep the API compatible.
#define TGEMM_VERSION_MINOR 1
/// Patch version: fixes only.
#define TGEMM_VERSION_PATCH 0
/// The version as one number, major * 10000 + minor * 100 + patch.
#define TGEMM_VERSION (TGEMM_VERSION_MAJOR * 10000 + TGEMM_VERSION_MINOR * 100 + TGEMM_VERSION_PATCH)

namespace tgemm {
/// The version this header belongs to, as "major.minor.patch".
inline constexpr const char* version_string = "0.1.0";
}  // namespace tgemm
