#!/bin/sh
# Extracts the real-room recordings from local snapshots of public repositories into cache/
# (16 kHz mono 16-bit WAV: NAME_mic.wav, NAME_ref.wav, optionally NAME_oracle.wav = a third-party
# neural canceller's output used only to label where the near end talks). Nothing here is committed.
# Snapshots: /work/.mirror/OWNER+NAME/repo (the `fetch` tool of the development machines, see
# DEVELOPERS.md), or any bare/normal git dir given as AEC_REAL_MIRROR/OWNER+NAME.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=$here/cache
mirror=${AEC_REAL_MIRROR:-/work/.mirror}
command -v sox >/dev/null || { echo "aec-real: sox is missing (apt-get install sox): it converts the recordings" >&2; exit 1; }
mkdir -p "$cache"
missing=""
gitdir() { # owner+name -> git dir, or empty
    for d in "$mirror/$1/repo" "$mirror/$1/.git" "$mirror/$1"; do
        [ -d "$d" ] && git --git-dir="$d" rev-parse HEAD >/dev/null 2>&1 && { echo "$d"; return; }
    done
}
take() { # repo path name kind: extracts and converts one file to cache/NAME_KIND.wav
    g=$(gitdir "$1")
    if [ -z "$g" ]; then
        case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac
        return
    fi
    out=$cache/$3_$4.wav
    [ -s "$out" ] && return
    git --git-dir="$g" show "HEAD:$2" > "$cache/tmp.wav"
    sox -D "$cache/tmp.wav" -r 16000 -c 1 -b 16 "$out"
    rm -f "$cache/tmp.wav"
}
K=changxuding+Subband_Kalman_AEC
D=breizhn+DTLN-aec
N=fjiang9+NKF-AEC
# Far end only (every stretch with reference is echo-only).
take $D audio_samples/9mkQhVtzTEy2hDk-6u2Sww_farend_singletalk_mic.wav challenge-farend mic
take $D audio_samples/9mkQhVtzTEy2hDk-6u2Sww_farend_singletalk_lpb.wav challenge-farend ref
take $K test_audio/aec_respeaker_6mic/qingyinyue/echo.wav respeaker-music1 mic
take $K test_audio/aec_respeaker_6mic/qingyinyue/far.wav respeaker-music1 ref
take $K test_audio/aec_respeaker_6mic/zhoujielun/echo.wav respeaker-music2 mic
take $K test_audio/aec_respeaker_6mic/zhoujielun/far.wav respeaker-music2 ref
# Real near end only (mixed into the echo-only recordings for the double-talk scenes).
take $D audio_samples/DLhjtuwiEkS-68TsUVvW5g_nearend_singletalk_mic.wav challenge-nearend mic
# Real double talk; the near end is located with Silero on the oracle (NKF / Kalman+NLP output).
for id in QG4-PpzI-EmU-Qzb-7pSow qJuAkf-g00CNrazjR6-JIg QLaGxunnbUKP8t_ZHZAG4w QtLE7-zrVkmlqiDjKli0kQ q2x99Trf80SQ4ZJo9I01_A; do
    for v in doubletalk doubletalk_with_movement; do
        name=challenge-$(echo "$id" | cut -c1-6)-$(echo $v | sed 's/doubletalk_with_movement/dt-moving/; s/^doubletalk$/dt/')
        take $N demo/test_wavs/blind_test_set_clean_doubletalk/${id}_${v}_mic.wav "$name" mic
        take $N demo/test_wavs/blind_test_set_clean_doubletalk/${id}_${v}_lpb.wav "$name" ref
        take $N demo/NKF/blind_test_set_clean_doubletalk/${id}_${v}.wav "$name" oracle
    done
done
take $K test_audio/AEC_Challenge/double_real/1/0woDOjC0p0KzH5nN0fn1Jw_doubletalk_mic.wav challenge-0woDOj-dt40s mic
take $K test_audio/AEC_Challenge/double_real/1/0woDOjC0p0KzH5nN0fn1Jw_doubletalk_lpb.wav challenge-0woDOj-dt40s ref
take $K test_audio/AEC_Challenge/double_real/1/kalman_nlp_out_update.wav challenge-0woDOj-dt40s oracle
take $K test_audio/AecSamples/real_iphone/real_iphone_near.wav iphone mic
take $K test_audio/AecSamples/real_iphone/real_iphone_far.wav iphone ref
take $K test_audio/AecSamples/real_iphone/kalman_nlp_out_update.wav iphone oracle
# More real double talk: the 0woDOj recording again with the device moved, ewan-xu/AecSamples' real_linear,
# and an AEC Challenge clip whose oracle is DTLN-aec's own output.
take $K test_audio/AEC_Challenge/double_real/2/0woDOjC0p0KzH5nN0fn1Jw_doubletalk_with_movement_mic.wav challenge-dt40s-moving mic
take $K test_audio/AEC_Challenge/double_real/2/0woDOjC0p0KzH5nN0fn1Jw_doubletalk_with_movement_lpb.wav challenge-dt40s-moving ref
take $K test_audio/AEC_Challenge/double_real/2/kalman_nlp_out_update.wav challenge-dt40s-moving oracle
take $K test_audio/AecSamples/real_linear/real_linear_near.wav real-linear mic
take $K test_audio/AecSamples/real_linear/real_linear_far.wav real-linear ref
take $K test_audio/AecSamples/real_linear/kalman_nlp_out_update.wav real-linear oracle
take $D audio_samples/DMTgmZwtgUilp4omPK7-OQ_doubletalk_mic.wav challenge-DMTgmZ-dt mic
take $D audio_samples/DMTgmZwtgUilp4omPK7-OQ_doubletalk_lpb.wav challenge-DMTgmZ-dt ref
take $D audio_samples/DMTgmZwtgUilp4omPK7-OQ_doubletalk_processed.wav challenge-DMTgmZ-dt oracle
if [ -n "$missing" ]; then
    echo "aec-real: missing snapshots:$missing" >&2
    echo "  bring each here with the fetch tool (fetch github:OWNER/NAME for each OWNER+NAME above; see" >&2
    echo "  DEVELOPERS.md), or point AEC_REAL_MIRROR at a directory holding OWNER+NAME git clones. Recordings" >&2
    echo "  from the available ones were extracted; the benchmark runs on what is in $cache." >&2
fi
ls "$cache" | grep -c _mic.wav | sed 's/^/aec-real: recordings in cache: /'
