#pragma once
/* The paced test PCM has no API of its own: alsa-lib loads it as a PCM plugin
 * (libasound_module_pcm_jvpaced.so, entry point _snd_pcm_jvpaced_open). */
