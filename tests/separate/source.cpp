// The one TU of the program that compiles rmq's non-template code (separate compilation).
#if defined(RMQ_SEPARATE_SRC_HPP)
#    include <rmq/src.hpp>
#else
#    define RMQ_SOURCE  // the single header: what <rmq/src.hpp> does
#    include <rmq/remoting.hpp>
#endif
