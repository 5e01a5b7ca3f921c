#!/bin/sh
# The capture-chain benchmarks' scene, 21 s at 16 kHz mono: WORK/scene_ref.wav is espeak-ng speech
# (en-us, 165 wpm) as the far end; WORK/scene_mic.wav is its echo 20 ms later at -6 dB through a
# 3.4 kHz low-pass with a little room reverb, plus a -50 dBFS noise floor.
# Usage: Benchmarks/capture-chain/scene.sh WORK    (needs espeak-ng, sox; the same files on every run)
set -eu
work=$1
mic=$work/scene_mic.wav ref=$work/scene_ref.wav
text="The kitchen speaker plays the answer while the microphone keeps listening. Echo cancellation removes what the loudspeaker said, so the assistant only hears the person in the room. Tomorrow will be sunny with a light breeze from the west and temperatures around twenty degrees."
espeak-ng -v en-us -s 165 -w "$work/speech.wav" "$text $text"
sox -D "$work/speech.wav" -r 16000 -c 1 -b 16 "$work/speech16.wav"
sox -D "$work/speech16.wav" "$work/speech16.wav" "$work/speech16.wav" "$ref" trim 0 21
sox -D "$ref" "$work/echo.wav" pad 0.02 vol 0.5 lowpass 3400 reverb 20 50 30 trim 0 21
sox -D -R -n -r 16000 -c 1 -b 16 "$work/noise.wav" synth 21 whitenoise vol 0.003
sox -D -m "$work/echo.wav" "$work/noise.wav" -b 16 "$mic"
