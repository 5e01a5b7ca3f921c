// ALSA
