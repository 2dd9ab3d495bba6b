#pragma once

/// @file remoting/headers.hpp
/// Every typed request/response header ("custom header") rmq puts on the wire, one file per request family
/// under remoting/headers/, over the field machinery of remoting/headers/fields.hpp, and the request codes.

#include <rmq/remoting/headers/admin.hpp>
#include <rmq/remoting/headers/fields.hpp>
#include <rmq/remoting/headers/membership.hpp>
#include <rmq/remoting/headers/offsets.hpp>
#include <rmq/remoting/headers/pop.hpp>
#include <rmq/remoting/headers/pull.hpp>
#include <rmq/remoting/headers/route.hpp>
#include <rmq/remoting/headers/send.hpp>
#include <rmq/remoting/headers/send_back.hpp>
#include <rmq/remoting/headers/transaction.hpp>
#include <rmq/remoting/request_code.hpp>
