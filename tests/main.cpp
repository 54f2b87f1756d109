// The one doctest main; every other file in tests/ holds the specification of one part of src/.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
