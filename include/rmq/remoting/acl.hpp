#pragma once

/// @file remoting/acl.hpp
/// ACL request signing (Java's AclClientRPCHook / AclSigner): HMAC-SHA1 over the sorted ext field values
/// and the body, Base64-encoded into ext field `Signature`. Same wire format for ACL 1.0 (4.9.x–5.3.2) and
/// 5.3+ authentication.

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <rmq/config.hpp>
#include <rmq/remoting/command.hpp>

namespace rmq::remoting {

/// Ext field names the hook adds.
namespace acl_field {
inline constexpr std::string_view access_key = "AccessKey";
inline constexpr std::string_view security_token = "SecurityToken";
inline constexpr std::string_view signature = "Signature";
}  // namespace acl_field

/// Java's SessionCredentials: what a client signs with.
struct AclCredentials {
    std::string access_key{};
    std::string secret_key{};
    /// STS token; added as ext field `SecurityToken` (and signed) when present.
    std::optional<std::string> security_token{};
};

/// AclSigner.calSignature: Base64(HmacSHA1(key = UTF-8 secret, data)). Throws rmq::InvalidArgument for an
/// empty secret key (javax.crypto refuses it, so a Java peer could never have produced such a signature).
std::string acl_signature(std::span<const std::byte> data, std::string_view secret_key);

/// acl_signature() of UTF-8 text.
std::string acl_signature(std::string_view data, std::string_view secret_key);

/// The bytes AclClientRPCHook signs: the values of every ext field except `Signature`, ordered by key with
/// Java's String.compareTo (uppercase before lowercase), concatenated without separators, then the body.
/// Null values are skipped (they never reach the wire, so the server cannot include them either).
std::string acl_signing_content(const Command& cmd);

/// AclClientRPCHook.doBeforeRequest: adds `AccessKey` (and `SecurityToken`), then `Signature`. Call it last,
/// after every ext field and the body are final: the server recomputes the signature from what it receives.
void acl_sign(Command& cmd, const AclCredentials& credentials);

}  // namespace rmq::remoting

#if RMQ_INCLUDE_IMPL
#    include <rmq/remoting/impl/acl.ipp>
#endif
