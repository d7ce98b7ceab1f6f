/* Messages and names of the status codes in al-status.h. */
#include "al-status.h"

const char *al_status_message(al_status status)
{
    switch (status) {
#define AL_STATUS_MESSAGE(code, message)                                                   \
    case code:                                                                             \
        return message;
        AL_STATUS_LIST(AL_STATUS_MESSAGE)
#undef AL_STATUS_MESSAGE
    }
    return "unknown status";
}

const char *al_status_name(al_status status)
{
    switch (status) {
#define AL_STATUS_NAME(code, message)                                                      \
    case code:                                                                             \
        return #code;
        AL_STATUS_LIST(AL_STATUS_NAME)
#undef AL_STATUS_NAME
    }
    return "AL_UNKNOWN";
}
