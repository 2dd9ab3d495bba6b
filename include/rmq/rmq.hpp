#pragma once

/// @file rmq.hpp
/// The umbrella header: everything rmq offers. It is also the root of the generated single header.

#include <rmq/clock.hpp>
#include <rmq/concepts/transport.hpp>
#include <rmq/config.hpp>
#include <rmq/error.hpp>
#include <rmq/message.hpp>
#include <rmq/message_queue.hpp>
#include <rmq/protocol.hpp>
#include <rmq/subscription.hpp>
#include <rmq/topic.hpp>
#include <rmq/version.hpp>
