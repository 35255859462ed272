#!/usr/bin/env bash
# Runs one svc workflow from a CI pipeline and follows it to the end over Server-Sent Events.
#
#   SVC_URL=https://svc.example.com SVC_TOKEN=eyJ… SVC_PROJECT_ID=… \
#     bash run-workflow.sh "Build the release notes page"
#
# Environment:
#   SVC_URL            the server, e.g. https://svc.example.com (required)
#   SVC_TOKEN          an `api` token, ideally narrowed to the project (required; see docs/ci.md)
#   SVC_PROJECT_ID     the project to run the workflow in (required)
#   SVC_REQUIREMENT    the requirement text (or the first argument, or SVC_REQUIREMENT_FILE)
#   SVC_REQUIREMENT_FILE  a file holding the requirement
#   SVC_WORKER_ID      run on this worker (id or name), optional
#   SVC_TEMPLATE       start from this template, optional
#   SVC_REPORT_FILE    save report.md here when the workflow completes, optional
#   SVC_ARCHIVE_FILE   save the workspace (.tar.gz) here when the workflow ends, optional
#   SVC_MAX_RECONNECTS how often a dropped event stream is resumed (default 20)
#
# Exit status: 0 completed; 1 failed, cancelled, or waiting for an answer nobody in CI can give;
# 2 bad usage or the API refused (bad token, no access, no such project).
# Needs bash, curl (7.76+) and jq.
set -euo pipefail

curl_pid=''
die() {
  echo "svc: $*" >&2
  [[ -n $curl_pid ]] && kill "$curl_pid" 2>/dev/null
  exit 2
}

[[ -n ${SVC_URL:-} ]] || die 'set SVC_URL'
[[ -n ${SVC_TOKEN:-} ]] || die 'set SVC_TOKEN (an api token from POST /svc/api/token)'
[[ -n ${SVC_PROJECT_ID:-} ]] || die 'set SVC_PROJECT_ID'
command -v jq >/dev/null || die 'jq is required'
requirement=${1:-${SVC_REQUIREMENT:-}}
if [[ -z $requirement && -n ${SVC_REQUIREMENT_FILE:-} ]]; then requirement=$(<"$SVC_REQUIREMENT_FILE"); fi
[[ -n $requirement ]] || die 'give the requirement as an argument, SVC_REQUIREMENT or SVC_REQUIREMENT_FILE'
base=${SVC_URL%/}/svc/api

# Every call with the token; the body of an error answer is kept (--fail-with-body).
api() { curl -sS --fail-with-body -H "Authorization: Bearer $SVC_TOKEN" "$@"; }

body=$(jq -n --arg requirement "$requirement" --arg worker "${SVC_WORKER_ID:-}" --arg template "${SVC_TEMPLATE:-}" \
  '{requirement: $requirement}
   + (if $worker != "" then {worker_id: $worker} else {} end)
   + (if $template != "" then {template: $template} else {} end)')
created=$(api -H 'Content-Type: application/json' -d "$body" "$base/projects/$SVC_PROJECT_ID/workflows") ||
  die "could not create the workflow: $created"
id=$(jq -r .id <<<"$created")
echo "svc: workflow $id created in project $SVC_PROJECT_ID"

# Follows the event stream. `since_seq=0` replays everything first, so a workflow that finished before
# the stream opened is still seen; after a dropped connection, Last-Event-ID resumes after the last
# event seen (the server sends every seq once, in order). The stream stays open after the workflow
# ends: the script stops reading at the final workflow_status.
result=''      # exit status once the workflow has ended
last_id=0
reconnects=0

on_event() { # $1 = event type, $2 = data (the envelope JSON)
  local type=$1 data=$2 status
  case $type in
    workflow_status)
      status=$(jq -r .data.status <<<"$data")
      echo "svc: status $status"
      case $status in
        completed) result=0 ;;
        failed)
          echo "svc: the workflow failed: $(jq -r '.data.error // "no reason given"' <<<"$data")" >&2
          result=1
          ;;
        cancelled)
          echo 'svc: the workflow was cancelled' >&2
          result=1
          ;;
        waiting_user)
          echo "svc: the workflow asks: $(jq -r '.data.question // ""' <<<"$data")" >&2
          echo "svc: answer it in the web app (POST $base/workflows/$id/answer); this job stops here" >&2
          result=1
          ;;
      esac
      ;;
    plan_step_status)
      jq -r '"svc:   step \(.data.index + 1) \(.data.status): \(.data.title)"' <<<"$data"
      ;;
    workflow_title)
      echo "svc: title: $(jq -r .data.title <<<"$data")"
      ;;
    error)
      echo "svc: the event stream ended: $(jq -r '"\(.error.code): \(.error.message)"' <<<"$data")" >&2
      case $(jq -r .error.code <<<"$data") in
        unauthenticated | forbidden | not_found) exit 2 ;;
      esac
      ;;
  esac
}

follow() { # one connection; returns when the workflow ended or the stream closed
  local line event='' data='' pending_id='' other='' rc=0
  exec 3< <(exec curl -sS -N --fail-with-body -H "Authorization: Bearer $SVC_TOKEN" \
    -H 'Accept: text/event-stream' -H "Last-Event-ID: $last_id" "$base/workflows/$id/events?since_seq=0")
  curl_pid=$!
  while [[ -z $result ]] && IFS= read -r line <&3; do
    line=${line%$'\r'}
    case $line in
      '')
        if [[ -n $event || -n $data ]]; then
          [[ -n $pending_id ]] && last_id=$pending_id
          on_event "${event:-message}" "$data"
        fi
        event='' data='' pending_id=''
        ;;
      :*) ;; # heartbeat
      id:*) pending_id=${line#id:} pending_id=${pending_id# } ;;
      event:*) event=${line#event:} event=${event# } ;;
      data:*)
        line=${line#data:}
        data+=${line# }
        ;;
      retry:*) ;;
      *) other+=$line ;; # not an event stream: an error answer
    esac
  done
  if [[ -n $result ]]; then
    kill "$curl_pid" 2>/dev/null || true
  else
    wait "$curl_pid" || rc=$?
    # curl exit 22: the server answered with an error status before any stream.
    if ((rc == 22)); then die "the event stream was refused: $other"; fi
  fi
  curl_pid=''
  exec 3<&-
}

while [[ -z $result ]]; do
  follow
  [[ -n $result ]] && break
  reconnects=$((reconnects + 1))
  ((reconnects <= ${SVC_MAX_RECONNECTS:-20})) || die "the event stream dropped $reconnects times; giving up"
  echo "svc: the event stream dropped; resuming after event $last_id" >&2
  sleep 2
done

if [[ -n ${SVC_ARCHIVE_FILE:-} ]]; then
  api -o "$SVC_ARCHIVE_FILE" "$base/workflows/$id/archive" && echo "svc: workspace saved to $SVC_ARCHIVE_FILE"
fi
if [[ $result == 0 && -n ${SVC_REPORT_FILE:-} ]]; then
  api -o "$SVC_REPORT_FILE" "$base/workflows/$id/report" && echo "svc: report saved to $SVC_REPORT_FILE"
  # On GitHub Actions, the report also goes to the job summary.
  if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then cat "$SVC_REPORT_FILE" >>"$GITHUB_STEP_SUMMARY"; fi
fi
exit "$result"
